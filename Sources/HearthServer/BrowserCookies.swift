import HearthHTTP

/// The cookies Hearth's own browser pages keep (the console's session, a browser sign-in in flight): reading one
/// from a request, and the `Set-Cookie` values that set and clear one — always `HttpOnly`, and `Secure` when the
/// request reached a TLS-terminating proxy listed in `--trusted-proxies` (which says so in `X-Forwarded-Proto`:
/// `HTTPRequest.isForwardedHTTPS`), since over plain HTTP a browser would drop a `Secure` cookie.
enum BrowserCookies {
    /// The value of the cookie `name` in `request`'s `Cookie` headers; `nil` when absent or empty.
    static func value(_ name: String, in request: HTTPRequest) -> String? {
        for header in request.headers.values(for: "Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].trimmingSpaces == name else { continue }
                let value = parts[1].trimmingSpaces
                if !value.isEmpty { return value }
            }
        }
        return nil
    }

    /// `SameSite=Strict` keeps a cookie off every request another site starts; `Lax` lets it ride on a top-level
    /// `GET` navigation from another site — what a provider's redirect back to a sign-in is.
    enum SameSite: String {
        case strict = "Strict"
        case lax = "Lax"
    }

    /// The `Set-Cookie` value that sets `name` to `value` under `path` for `maxAge` seconds.
    static func setting(
        _ name: String, to value: String, path: String = "/", maxAge: Int, sameSite: SameSite, for request: HTTPRequest
    ) -> String {
        "\(name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=\(sameSite.rawValue)"
            + (request.isForwardedHTTPS ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that removes `name` (set under `path` with `sameSite`).
    static func clearing(_ name: String, path: String = "/", sameSite: SameSite, for request: HTTPRequest) -> String {
        setting(name, to: "", path: path, maxAge: 0, sameSite: sameSite, for: request)
    }
}

extension Substring {
    /// The text without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
