import Foundation
import HearthCore
import HearthHTTPClient

/// Fetches identity providers' documents and APIs: every URL is checked against the ``ProviderURLPolicy`` first,
/// and every failure — unreachable, refused URL, non-200, not JSON — is `INVALID_IDP_RESPONSE`, so a sign-in that
/// cannot be verified writes nothing.
struct ProviderFetcher: Sendable {
    /// How requests are sent: libcurl, or a stand-in in unit tests.
    typealias Transport = @Sendable (OutboundRequest) throws(OutboundHTTPError) -> OutboundResponse

    let policy: ProviderURLPolicy
    let transport: Transport

    /// GETs (or POSTs a form to) `url` and parses a JSON answer; returns it with the response headers.
    func json(
        _ url: String, headers: [(name: String, value: String)] = [], form: [(String, String)]? = nil
    ) throws(AuthError) -> (value: JSONValue, headers: [String: String], status: Int) {
        guard policy.allows(url) else {
            throw AuthError.invalidIdpResponse("the provider URL \(url) is not https")
        }
        var request = OutboundRequest(url: url, headers: [("Accept", "application/json")] + headers)
        if let form {
            request.method = "POST"
            request.headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            request.body = Array(
                form.map { "\(AccountService.percentEncode($0.0))=\(AccountService.percentEncode($0.1))" }
                    .joined(separator: "&").utf8)
        }
        request.allowPlainHTTP = policy.isPlainHTTP(url)
        let response: OutboundResponse
        do {
            response = try transport(request)
        } catch {
            throw AuthError.invalidIdpResponse("cannot reach the identity provider (\(error))")
        }
        guard let value = try? JSONParser.parse(response.body) else {
            throw AuthError.invalidIdpResponse("the identity provider answered HTTP \(response.status) without JSON")
        }
        return (value, response.headers, response.status)
    }

    /// Seconds a response may be reused according to its `Cache-Control` (`max-age`, `no-store`, `no-cache`),
    /// clamped to a day; `fallback` when the header says nothing.
    static func cacheLifetime(_ headers: [String: String], fallback: Int64 = 300) -> Int64 {
        guard let control = headers["cache-control"]?.lowercased() else { return fallback }
        var lifetime = fallback
        for directive in control.split(separator: ",") {
            let part = directive.trimmingCharacters(in: .whitespaces)
            if part == "no-store" || part == "no-cache" { return 0 }
            if part.hasPrefix("max-age="), let seconds = Int64(part.dropFirst(8)) { lifetime = seconds }
        }
        return min(max(lifetime, 0), 86_400)
    }
}

extension AuthError {
    /// `INVALID_IDP_RESPONSE : detail`: the credential did not verify, or the provider could not be asked.
    static func invalidIdpResponse(_ detail: String) -> AuthError { AuthError("INVALID_IDP_RESPONSE", detail) }
    /// `MISSING_OR_INVALID_NONCE`: the raw nonce sent does not hash to the token's `nonce`.
    static func invalidNonce(_ detail: String) -> AuthError { AuthError("MISSING_OR_INVALID_NONCE", detail) }
    /// The provider is known but not configured on this server.
    static let operationNotAllowed = AuthError(
        "OPERATION_NOT_ALLOWED", "The identity provider configuration is not found or disabled.")
}
