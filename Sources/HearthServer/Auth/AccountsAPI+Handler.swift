import Foundation
import HearthAuth
import HearthCore
import HearthCrypto
import HearthHTTP

/// `/__/auth/handler`: a browser sign-in with a provider's code flow, run by the server for a web page — the page
/// sends the browser here, Hearth sends it on to the provider (with `state`, PKCE and, for OpenID providers, a
/// nonce: `accounts:createAuthUri`), the provider sends it back here with a code, Hearth redeems the code and signs
/// the user in (`accounts:signInWithIdp`), and the browser goes back to the page with the result in the URL's
/// fragment, which never reaches a server or a log.
///
/// Starting: `GET /__/auth/handler?providerId=facebook.com&redirectUrl=https://app.example/signed-in` (Firebase's
/// parameter names; `apiKey` is passed on). `redirectUrl` must be on an authorized domain (`--authorized-domains`;
/// `localhost` and `127.0.0.1` in development mode), checked again on the way back. In development mode a provider
/// that is not configured goes through the provider picker, as `createAuthUri` does.
///
/// The result, as Identity Toolkit names it: `#idToken=…&refreshToken=…&expiresIn=…&localId=…&providerId=…&
/// isNewUser=…` (and `email`), or `#error=CODE&error_description=…` — `NEED_CONFIRMATION` with `email` when the
/// address belongs to an account with another sign-in method.
extension AccountsAPI {
    /// The cookie that carries a sign-in in flight from the first leg to the provider's redirect back.
    static let handlerCookie = "hearth_auth_handler"
    static let handlerPath = "/__/auth/handler"

    func authHandler(_ request: HTTPRequest) -> HTTPReply {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .response(html("<h1>Use GET.</h1>", status: 405))
        }
        let context = RequestContext(
            isAdmin: false, clientAddress: request.remoteAddress, linkBaseURL: linkBase(request),
            apiKey: request.queryValue("apiKey"))
        if request.queryValue("state") != nil || request.queryValue("code") != nil
            || request.queryValue("error") != nil
        {
            return finishHandler(request, context: context)
        }
        return startHandler(request, context: context)
    }

    /// The first leg: on to the provider (or the picker), the sign-in remembered in a cookie.
    private func startHandler(_ request: HTTPRequest, context: RequestContext) -> HTTPReply {
        guard let providerID = request.queryValue("providerId"), !providerID.isEmpty else {
            return .response(html("<h1>The sign-in names no providerId.</h1>", status: 400))
        }
        guard let redirectURL = request.queryValue("redirectUrl"), service.isAuthorizedContinueURL(redirectURL) else {
            return .response(
                html("<h1>The redirectUrl is missing or not on an authorized domain.</h1>", status: 400))
        }
        let handlerURL = context.linkBaseURL + Self.handlerPath
        return work(request) { () throws(AuthError) in
            let started: (authURI: String, sessionID: String)
            do throws(AuthError) {
                started = try service.createAuthURI(
                    providerID: providerID, continueURI: handlerURL, context: context)
            } catch {
                return redirect(Self.fragment(redirectURL, Self.errorFields(error)))
            }
            var answer = redirect(started.authURI)
            let carried = started.sessionID + "." + Base64URL.encode(Array(redirectURL.utf8))
            answer.headers.add(
                name: "Set-Cookie",
                value: BrowserCookies.setting(
                    Self.handlerCookie, to: carried, path: Self.handlerPath,
                    maxAge: Int(AccountService.browserSignInLifetime), sameSite: .lax, for: request))
            answer.headers.add(name: "Cache-Control", value: "no-store")
            return answer
        }
    }

    /// The provider's redirect back: the code redeemed, the user signed in, the browser sent back to the page.
    private func finishHandler(_ request: HTTPRequest, context: RequestContext) -> HTTPReply {
        guard let carried = BrowserCookies.value(Self.handlerCookie, in: request),
            let dot = carried.firstIndex(of: "."),
            let redirectBytes = Base64URL.decode(String(carried[carried.index(after: dot)...])),
            case let redirectURL = String(decoding: redirectBytes, as: UTF8.self),
            service.isAuthorizedContinueURL(redirectURL)
        else {
            return .response(
                html("<h1>This sign-in was not started in this browser, or it has expired.</h1>", status: 400))
        }
        let sessionID = String(carried[..<dot])
        let requestURI = context.linkBaseURL + Self.handlerPath + "?" + Self.queryString(request.query)
        return work(request) { () throws(AuthError) in
            let fields: [(String, String)]
            do throws(AuthError) {
                let result = try service.signInWithIdp(
                    IdpSignInRequest(requestURI: requestURI, sessionID: sessionID), context: context)
                fields = Self.resultFields(result)
            } catch {
                fields = Self.errorFields(error)
            }
            var answer = redirect(Self.fragment(redirectURL, fields))
            answer.headers.add(
                name: "Set-Cookie",
                value: BrowserCookies.clearing(
                    Self.handlerCookie, path: Self.handlerPath, sameSite: .lax, for: request))
            answer.headers.add(name: "Cache-Control", value: "no-store")
            answer.headers.add(name: "Referrer-Policy", value: "no-referrer")
            return answer
        }
    }

    /// The signed-in user as the fragment carries it (Identity Toolkit's names).
    private static func resultFields(_ result: IdpSignInResult) -> [(String, String)] {
        let identity = result.identity
        if result.needConfirmation {
            var fields = [("error", "NEED_CONFIRMATION"), ("providerId", identity.providerID)]
            if let email = identity.email { fields.append(("email", email)) }
            fields.append(("error_description", "the address belongs to an account with another sign-in method"))
            return fields
        }
        var object: [String: JSONValue] = [:]
        AccountsJSON.add(result.tokens, to: &object)
        var fields: [(String, String)] = []
        for name in ["idToken", "refreshToken", "expiresIn"] {
            if let value = object[name]?.stringValue { fields.append((name, value)) }
        }
        if let user = result.user { fields.append(("localId", user.uid)) }
        fields.append(("providerId", identity.providerID))
        fields.append(("isNewUser", result.isNewUser ? "true" : "false"))
        if let email = identity.email { fields.append(("email", email)) }
        return fields
    }

    private static func errorFields(_ error: AuthError) -> [(String, String)] {
        [("error", error.code), ("error_description", error.message)]
    }

    /// `url` with `fields` as its fragment (any fragment it had is replaced).
    private static func fragment(_ url: String, _ fields: [(String, String)]) -> String {
        let base = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
        return (base ?? url) + "#" + fields.map { "\($0.0)=\(PercentEncoding.unreserved($0.1))" }.joined(separator: "&")
    }

    /// The request's query, encoded again, for the `requestUri` the code flow checks.
    private static func queryString(_ items: [HTTPQueryItem]) -> String {
        items.map { "\(PercentEncoding.unreserved($0.name))=\(PercentEncoding.unreserved($0.value))" }
            .joined(separator: "&")
    }
}
