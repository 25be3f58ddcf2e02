import Foundation
import HearthCore
import HearthTesting
import Testing

/// `accounts:signInWithIdp` against a fake identity provider on 127.0.0.1, with the production verification path:
/// a sign-in per provider kind, every rejection with its error and no account written, key rotation, and what the
/// new account's tokens carry.
@Suite("Federated sign-in")
struct FederatedSignInTests {
    @Test("each provider kind signs in, and signs the same account in again; lookup shows the linked provider")
    func signInPerProviderKind() async throws {
        try await Providers.withServer { server, idp in
            let client = server.client
            // Google, RS256: federatedId as Google's, verified email, the provider in the ID token.
            let google = try idp.idToken([
                "sub": "g-1", "email": "Gina@Example.com", "email_verified": true, "name": "Gina",
                "picture": "https://example.com/g.png",
            ])
            let first = try expectOK(await client.signInWithIdp("google.com", idToken: google))
            #expect(first["isNewUser"] == true)
            #expect(first["providerId"] == "google.com")
            #expect(first["federatedId"] == "https://accounts.google.com/g-1")
            #expect(first["email"] == "gina@example.com")
            #expect(first["emailVerified"] == true)
            #expect(first["displayName"] == "Gina")
            #expect(first["photoUrl"] == "https://example.com/g.png")
            #expect(first["oauthIdToken"]?.stringValue == google)
            #expect(first["rawUserInfo"]?.stringValue?.contains("\"sub\":\"g-1\"") == true)
            let uid = try #require(first["localId"]?.stringValue)
            let claims = try #require(Accounts.claims(first["idToken"]?.stringValue ?? ""))
            #expect(claims["firebase"]?["sign_in_provider"] == "google.com")
            #expect(claims["firebase"]?["identities"]?["google.com"] == ["g-1"])
            #expect(claims["email_verified"] == true)
            let again = try expectOK(await client.signInWithIdp("google.com", idToken: try idp.idToken(["sub": "g-1"])))
            #expect(again["isNewUser"] == false)
            #expect(again["localId"]?.stringValue == uid)
            let account = try await client.account(uid)
            #expect(account["providerUserInfo"]?[0]?["providerId"] == "google.com")
            #expect(account["providerUserInfo"]?[0]?["rawId"] == "g-1")
            #expect(account["providerUserInfo"]?[0]?["federatedId"] == "https://accounts.google.com/g-1")

            // Apple, ES256 with a nonce: the token carries the SHA-256 of the raw nonce the client sends.
            let apple = try idp.idToken(
                keyID: "ec-1", ["sub": "a-1", "nonce": .string(sha256Hex("raw-nonce-1")), "email": "ann@example.com"])
            let appleAnswer = try expectOK(
                await client.signInWithIdp("apple.com", idToken: apple, nonce: "raw-nonce-1"))
            #expect(appleAnswer["isNewUser"] == true)
            #expect(appleAnswer["federatedId"] == "a-1")
            #expect(appleAnswer["emailVerified"] == false)

            // A generic OpenID provider.
            let oidc = try expectOK(await client.signInWithIdp("oidc.fake", idToken: try idp.idToken(["sub": "o-1"])))
            #expect(oidc["providerId"] == "oidc.fake")
            #expect(oidc["isNewUser"] == true)

            // Facebook: debug_token for this app, then /me; Facebook does not vouch for the address.
            let facebook = idp.facebookToken(
                appID: Providers.facebookApp,
                user: [
                    "id": "fb-1", "name": "Fay", "email": "fay@example.com", "pictureURL": "https://example.com/f.png",
                ])
            let fb = try expectOK(await client.signInWithIdp("facebook.com", accessToken: facebook))
            #expect(fb["federatedId"] == "http://facebook.com/fb-1")
            #expect(fb["displayName"] == "Fay")
            #expect(fb["photoUrl"] == "https://example.com/f.png")
            #expect(fb["email"] == "fay@example.com")
            #expect(fb["emailVerified"] == false)
            #expect(fb["oauthAccessToken"]?.stringValue == facebook)

            // GitHub: /user, and the verified primary address from /user/emails.
            let github = idp.githubToken(
                user: ["id": 4242, "login": "octo", "name": .null, "avatar_url": "https://example.com/o.png"],
                emails: [
                    ["email": "old@example.com", "primary": false, "verified": true],
                    ["email": "octo@example.com", "primary": true, "verified": true],
                ])
            let gh = try expectOK(await client.signInWithIdp("github.com", accessToken: github))
            #expect(gh["federatedId"] == "4242")
            #expect(gh["email"] == "octo@example.com")
            #expect(gh["emailVerified"] == true)
            #expect(gh["displayName"] == "octo")
            let ghClaims = try #require(Accounts.claims(gh["idToken"]?.stringValue ?? ""))
            #expect(ghClaims["firebase"]?["sign_in_provider"] == "github.com")
            #expect(try await client.accountCount() == 5)
        }
    }

    /// A credential the server must refuse, and the error it answers with.
    struct Rejection: Sendable, CustomTestStringConvertible {
        var name: String
        var code: String
        var make:
            @Sendable (FakeIdentityProvider) throws -> (
                provider: String, idToken: String?, accessToken: String?, nonce: String?
            )
        var testDescription: String { name }
    }

    static let rejections: [Rejection] = [
        Rejection(name: "bad signature", code: "INVALID_IDP_RESPONSE") { idp in
            // A valid token whose payload was swapped for another user's: the signature no longer covers it.
            let good = try idp.idToken(["sub": "victim"]).split(separator: ".")
            let forged = try idp.idToken(["sub": "attacker"]).split(separator: ".")
            return ("oidc.fake", "\(good[0]).\(forged[1]).\(good[2])", nil, nil)
        },
        Rejection(name: "wrong aud", code: "INVALID_IDP_RESPONSE") { idp in
            ("oidc.fake", try idp.idToken(audience: "someone-elses-client"), nil, nil)
        },
        Rejection(name: "wrong iss", code: "INVALID_IDP_RESPONSE") { idp in
            ("oidc.fake", try idp.idToken(["iss": "https://evil.example.com"]), nil, nil)
        },
        Rejection(name: "expired", code: "INVALID_IDP_RESPONSE") { idp in
            let now = Int64(Date().timeIntervalSince1970)
            return ("oidc.fake", try idp.idToken(["iat": .integer(now - 7200), "exp": .integer(now - 3600)]), nil, nil)
        },
        Rejection(name: "nonce mismatch", code: "MISSING_OR_INVALID_NONCE") { idp in
            (
                "apple.com", try idp.idToken(keyID: "ec-1", ["nonce": .string(sha256Hex("the-real-nonce"))]), nil,
                "another"
            )
        },
        Rejection(name: "nonce missing from the request", code: "MISSING_OR_INVALID_NONCE") { idp in
            ("apple.com", try idp.idToken(keyID: "ec-1", ["nonce": .string(sha256Hex("the-real-nonce"))]), nil, nil)
        },
        Rejection(name: "alg none outside development mode", code: "INVALID_IDP_RESPONSE") { idp in
            (
                "google.com",
                Accounts.unsignedCustomToken(["iss": .string(idp.baseURL), "aud": "client-1", "sub": "x"]), nil, nil
            )
        },
        Rejection(name: "plain JSON claims outside development mode", code: "INVALID_IDP_RESPONSE") { _ in
            ("google.com", #"{"sub":"x","email":"x@example.com"}"#, nil, nil)
        },
        Rejection(name: "Facebook token issued to another app", code: "INVALID_IDP_RESPONSE") { idp in
            ("facebook.com", nil, idp.facebookToken(appID: "other-app", user: ["id": "fb-9", "name": "Mallory"]), nil)
        },
        Rejection(name: "Facebook token Facebook does not know", code: "INVALID_IDP_RESPONSE") { _ in
            ("facebook.com", nil, "EAAmadeup", nil)
        },
        Rejection(name: "GitHub token GitHub refuses", code: "INVALID_IDP_RESPONSE") { _ in
            ("github.com", nil, "gho_madeup", nil)
        },
        Rejection(name: "unknown kid", code: "INVALID_IDP_RESPONSE") { idp in
            try idp.addRSAKey("never-published", publish: false)
            return ("oidc.fake", try idp.idToken(keyID: "never-published"), nil, nil)
        },
        Rejection(name: "provider down", code: "INVALID_IDP_RESPONSE") { idp in
            ("oidc.down", try idp.idToken(), nil, nil)
        },
        Rejection(name: "provider not configured", code: "OPERATION_NOT_ALLOWED") { idp in
            ("microsoft.com", try idp.idToken(), nil, nil)
        },
        Rejection(name: "provider unknown", code: "INVALID_PROVIDER_ID") { idp in
            ("myspace.com", try idp.idToken(), nil, nil)
        },
    ]

    @Test("every bad credential is refused with its error, and no account is written", arguments: rejections)
    func rejection(_ rejection: Rejection) async throws {
        try await Providers.withServer { server, idp in
            let client = server.client
            let (provider, idToken, accessToken, nonce) = try rejection.make(idp)
            expectAuthError(
                try await client.signInWithIdp(provider, idToken: idToken, accessToken: accessToken, nonce: nonce),
                rejection.code)
            #expect(try await client.accountCount() == 0)
        }
    }

    @Test("a rotated key is found by one refetch of the JWKS; made-up key IDs do not make the server refetch again")
    func keyRotation() async throws {
        try await Providers.withServer { server, idp in
            let client = server.client
            try expectOK(await client.signInWithIdp("oidc.fake", idToken: try idp.idToken(["sub": "r-1"])))
            // The JWKS said max-age=3600: a second sign-in uses the cached keys.
            try expectOK(await client.signInWithIdp("oidc.fake", idToken: try idp.idToken(["sub": "r-1"])))
            let fetchesBefore = idp.jwksFetches
            #expect(fetchesBefore == 1)
            try idp.addRSAKey("rsa-2")
            idp.publishOnly(["rsa-2", "ec-1"])
            let rotated = try expectOK(
                await client.signInWithIdp("oidc.fake", idToken: try idp.idToken(keyID: "rsa-2", ["sub": "r-1"])))
            #expect(rotated["isNewUser"] == false)
            #expect(idp.jwksFetches == fetchesBefore + 1)
            // The retired key no longer verifies once the JWKS dropped it.
            expectAuthError(
                try await client.signInWithIdp("oidc.fake", idToken: try idp.idToken(keyID: "rsa-1")),
                "INVALID_IDP_RESPONSE")
            for index in 0..<5 {
                try idp.addRSAKey("bogus-\(index)", publish: false)
                expectAuthError(
                    try await client.signInWithIdp("oidc.fake", idToken: try idp.idToken(keyID: "bogus-\(index)")),
                    "INVALID_IDP_RESPONSE")
            }
            #expect(idp.jwksFetches <= fetchesBefore + 2)
            #expect(try await client.accountCount() == 1)
        }
    }
}

/// The `providers` configuration is checked at start-up: a server never runs with a provider it cannot verify.
@Suite("Provider configuration")
struct ProviderConfigurationTests {
    @Test(
        "a bad providers entry stops hearth serve with a message naming it",
        arguments: [
            (#"{"oidc.corp":{"issuer":"http://127.0.0.1:9","clientIds":["c"]}}"#, "must be an https URL"),
            (#"{"myspace.com":{"clientIds":["c"]}}"#, "unknown provider \"myspace.com\""),
            (#"{"google.com":{}}"#, "needs clientIds"),
            (#"{"oidc.corp":{"clientIds":["c"]}}"#, "needs issuer"),
            (#"{"facebook.com":{"appId":"1"}}"#, "needs appSecretFile"),
            (#"{"google.com":{"clientIds":["c"],"secret":"x"}}"#, "unknown member \"secret\""),
            (#"["google.com"]"#, "providers must be a JSON object"),
        ])
    func badProviders(json: String, mentioned: String) async throws {
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let run = try await runHearth(["serve", "--port", "0", "--data", data.path, "--providers", json])
        guard case .exit(let status) = run.termination else {
            Issue.record("hearth ended by \(run.termination)")
            return
        }
        #expect(status != 0)
        #expect(run.stderr.contains(mentioned), "stderr should say \(mentioned): \(run.stderr)")
        #expect(!run.stdout.contains("listening on"))
    }
}
