import Foundation
import HearthCore
import HearthTesting
import Testing

/// The browser's flow: `accounts:createAuthUri` with a `providerId` answers the provider's authorization URL (state,
/// PKCE S256, nonce) and a `sessionId`; the provider redirects back with a code, and `accounts:signInWithIdp` with
/// that `requestUri` and `sessionId` has the server redeem the code and verify the ID token.
@Suite("Federated sign-in through a browser redirect")
struct FederatedRedirectTests {
    static let continueURI = "http://localhost:5000/__/auth/handler"

    /// Starts a sign-in and plays the provider's login page: returns the redirect back and the session ID.
    static func startAndLogIn(
        _ client: HTTPClient, _ idp: FakeIdentityProvider, sub: String = "browser-1",
        tamperNonce: Bool = false
    ) async throws -> (requestURI: String, sessionID: String, state: String) {
        let started = try expectOK(
            await client.accounts("createAuthUri", ["providerId": "oidc.fake", "continueUri": .string(continueURI)]))
        let authURI = try #require(started["authUri"]?.stringValue)
        let sessionID = try #require(started["sessionId"]?.stringValue)
        #expect(authURI.hasPrefix(idp.baseURL + "/authorize?"))
        let items = URLComponents(string: authURI)?.queryItems ?? []
        func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
        #expect(item("response_type") == "code")
        #expect(item("client_id") == "client-1")
        #expect(item("redirect_uri") == continueURI)
        #expect(item("code_challenge_method") == "S256")
        let state = try #require(item("state"))
        let nonce = try #require(item("nonce"))
        let code = idp.authorizationCode(
            clientID: "client-1", clientSecret: Providers.oidcSecret, redirectURI: continueURI,
            codeChallenge: try #require(item("code_challenge")),
            idToken: try idp.idToken(["sub": .string(sub), "nonce": .string(tamperNonce ? "0000" : nonce)]))
        return ("\(continueURI)?code=\(code)&state=\(HTTPClient.encodeQuery(state))", sessionID, state)
    }

    static func finish(_ client: HTTPClient, requestURI: String, sessionID: String) async throws -> HTTPResult {
        try await client.accounts(
            "signInWithIdp",
            [
                "requestUri": .string(requestURI), "sessionId": .string(sessionID), "returnSecureToken": true,
                "returnIdpCredential": true,
            ])
    }

    @Test("the code comes back, the server redeems it with PKCE and the client secret, and signs the user in")
    func codeFlowSignsIn() async throws {
        try await Providers.withServer { server, idp in
            let client = server.client
            let (requestURI, sessionID, _) = try await Self.startAndLogIn(client, idp)
            let answer = try expectOK(await Self.finish(client, requestURI: requestURI, sessionID: sessionID))
            #expect(answer["providerId"] == "oidc.fake")
            #expect(answer["federatedId"] == "browser-1")
            #expect(answer["isNewUser"] == true)
            #expect(answer["oauthAccessToken"]?.stringValue?.hasPrefix("at-") == true)
            #expect(answer["idToken"]?.stringValue != nil)
            // A session ends once: replaying the redirect is refused.
            expectAuthError(
                try await Self.finish(client, requestURI: requestURI, sessionID: sessionID), "INVALID_IDP_RESPONSE")
            #expect(try await client.accountCount() == 1)
        }
    }

    @Test("a redirect with another state, an unknown session, or an ID token without the session's nonce is refused")
    func codeFlowRejections() async throws {
        try await Providers.withServer { server, idp in
            let client = server.client
            let first = try await Self.startAndLogIn(client, idp)
            let forged = first.requestURI.replacingOccurrences(
                of: "state=\(HTTPClient.encodeQuery(first.state))", with: "state=forged")
            expectAuthError(
                try await Self.finish(client, requestURI: forged, sessionID: first.sessionID), "INVALID_IDP_RESPONSE")
            let second = try await Self.startAndLogIn(client, idp)
            expectAuthError(
                try await Self.finish(client, requestURI: second.requestURI, sessionID: "made-up-session"),
                "INVALID_IDP_RESPONSE")
            let third = try await Self.startAndLogIn(client, idp, tamperNonce: true)
            expectAuthError(
                try await Self.finish(client, requestURI: third.requestURI, sessionID: third.sessionID),
                "MISSING_OR_INVALID_NONCE")
            let denied = try await Self.startAndLogIn(client, idp)
            expectAuthError(
                try await Self.finish(
                    client, requestURI: "\(Self.continueURI)?error=access_denied&state=\(denied.state)",
                    sessionID: denied.sessionID), "INVALID_IDP_RESPONSE")
            #expect(try await client.accountCount() == 0)
        }
    }

    /// Facebook's and GitHub's browser sign-in (OAuth 2.0, not OpenID Connect): the authorization page with the
    /// app's client ID, scopes, state and PKCE; the server buys an access token with the code and checks it as one
    /// the app sent (Facebook: issued to this app; GitHub: the verified primary email).
    @Test(arguments: ["facebook.com", "github.com"])
    func oauthProvidersCodeFlow(_ providerID: String) async throws {
        try await Providers.withServer { server, idp in
            let client = server.client
            let started = try expectOK(
                await client.accounts(
                    "createAuthUri", ["providerId": .string(providerID), "continueUri": .string(Self.continueURI)]))
            let authURI = try #require(started["authUri"]?.stringValue)
            let sessionID = try #require(started["sessionId"]?.stringValue)
            let page = providerID == "facebook.com" ? "/dialog/oauth?" : "/login/oauth/authorize?"
            #expect(authURI.hasPrefix(idp.baseURL + page), "\(authURI)")
            let items = URLComponents(string: authURI)?.queryItems ?? []
            func item(_ name: String) -> String? { items.first { $0.name == name }?.value }
            let clientID = providerID == "facebook.com" ? Providers.facebookApp : "gh-client"
            #expect(item("client_id") == clientID)
            #expect(item("redirect_uri") == Self.continueURI)
            #expect(item("scope") == (providerID == "facebook.com" ? "email,public_profile" : "read:user user:email"))
            #expect(item("nonce") == nil)
            let email = "\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let accessToken =
                providerID == "facebook.com"
                ? idp.facebookToken(
                    appID: Providers.facebookApp,
                    user: ["id": "fb-redirect", "name": "Fay Redirect", "email": .string(email)])
                : idp.githubToken(
                    user: ["id": 4242, "login": "octo-redirect", "name": "Octo Redirect"],
                    emails: [["email": .string(email), "primary": true, "verified": true]])
            let code = idp.oauthCode(
                clientID: clientID,
                clientSecret: providerID == "facebook.com" ? Providers.facebookSecret : Providers.oidcSecret,
                redirectURI: Self.continueURI, codeChallenge: try #require(item("code_challenge")),
                accessToken: accessToken)
            let state = try #require(item("state"))
            let requestURI = "\(Self.continueURI)?code=\(code)&state=\(HTTPClient.encodeQuery(state))"
            let answer = try expectOK(await Self.finish(client, requestURI: requestURI, sessionID: sessionID))
            #expect(answer["providerId"] == .string(providerID))
            #expect(answer["email"] == .string(email))
            #expect(answer["isNewUser"] == true)
            #expect(answer["oauthAccessToken"] == .string(accessToken))
            #expect(answer["idToken"]?.stringValue != nil)
            // A code is redeemed once, and a session ends once.
            expectAuthError(
                try await Self.finish(client, requestURI: requestURI, sessionID: sessionID), "INVALID_IDP_RESPONSE")

            // A code the provider refuses (here: one it never issued) signs no one in and writes nothing.
            let again = try expectOK(
                await client.accounts(
                    "createAuthUri", ["providerId": .string(providerID), "continueUri": .string(Self.continueURI)]))
            let againItems = URLComponents(string: again["authUri"]?.stringValue ?? "")?.queryItems ?? []
            let againState = againItems.first { $0.name == "state" }?.value ?? ""
            expectAuthError(
                try await Self.finish(
                    client,
                    requestURI: "\(Self.continueURI)?code=forged&state=\(HTTPClient.encodeQuery(againState))",
                    sessionID: again["sessionId"]?.stringValue ?? ""),
                "INVALID_IDP_RESPONSE")
            #expect(try await client.accountCount() == 1)
        }
    }
}
