import Foundation
import HearthCore
import HearthCrypto
import HearthMail
import Testing

@testable import HearthAuth

@Suite struct TokenTests {
    @Test func idTokenCarriesFirebaseClaims() throws {
        let fixture = try Fixture()
        let result = try fixture.signUp("Ann@Example.com")
        let tokens = try #require(result.tokens)
        #expect(tokens.expiresIn == 3600)
        let jwt = try #require(JWT.decode(tokens.idToken))
        #expect(jwt.algorithm == "RS256")
        #expect(jwt.keyID?.count == 40)
        let claims = jwt.payload
        #expect(claims["iss"] == "https://securetoken.google.com/demo-test")
        #expect(claims["aud"] == "demo-test")
        #expect(claims["sub"] == .string(result.user.uid))
        #expect(claims["user_id"] == .string(result.user.uid))
        #expect(claims["email"] == "ann@example.com")
        #expect(claims["email_verified"] == false)
        let issuedAt = try #require(claims["iat"]?.int64Value)
        #expect(claims["exp"]?.int64Value == issuedAt + 3600)
        #expect(claims["auth_time"]?.int64Value == issuedAt)
        #expect(claims["firebase"]?["sign_in_provider"] == "password")
        #expect(claims["firebase"]?["identities"]?["email"] == ["ann@example.com"])
        let verified = try fixture.service.verifyIDToken(tokens.idToken)
        #expect(verified.uid == result.user.uid)
    }

    @Test func jwksPublishesTheSigningKey() throws {
        let fixture = try Fixture()
        let token = try #require(fixture.signUp("a@example.com").tokens?.idToken)
        let keys = fixture.service.publishedKeys()
        #expect(keys.count == 1)
        let jwk = try #require(keys.first)
        #expect(jwk["kid"] == JWT.decode(token)?.keyID)
        // Any JWT library can verify with n and e alone.
        let publicKey = try RSAPublicKey(
            modulus: try #require(Base64URL.decode(jwk["n"]!)), exponent: try #require(Base64URL.decode(jwk["e"]!)))
        let jwt = try #require(JWT.decode(token))
        #expect(publicKey.isValidSignatureSHA256(jwt.signature, for: jwt.signingInput))
    }

    /// A token with `changes` applied to a genuine one's claims, signed with the service's own key.
    private func forged(
        _ fixture: Fixture, from token: String, _ changes: (inout [String: JSONValue]) -> Void
    ) throws -> String {
        var payload = try #require(JWT.decode(token)).payload
        changes(&payload)
        let key = try fixture.service.keys.signingKey()
        return try JWT.signRS256(payload: payload, keyID: key.id, key: key.privateKey)
    }

    @Test func rejectsUnsignedWrongKeyWrongAudienceIssuerAndTampering() throws {
        let fixture = try Fixture()
        let token = try #require(fixture.signUp("b@example.com").tokens?.idToken)
        let jwt = try #require(JWT.decode(token))
        let service = fixture.service

        #expect(
            authErrorCode { _ = try service.authContext(idToken: JWT.unsigned(payload: jwt.payload)) }
                == "INVALID_ID_TOKEN")
        let other = try RSAPrivateKey.generate()
        let wrongKey = try JWT.signRS256(payload: jwt.payload, keyID: try #require(jwt.keyID), key: other)
        #expect(authErrorCode { _ = try service.authContext(idToken: wrongKey) } == "INVALID_ID_TOKEN")
        let unknownKID = try JWT.signRS256(payload: jwt.payload, keyID: "nope", key: other)
        #expect(authErrorCode { _ = try service.authContext(idToken: unknownKID) } == "INVALID_ID_TOKEN")
        let wrongAudience = try forged(fixture, from: token) { $0["aud"] = "another-project" }
        #expect(authErrorCode { _ = try service.authContext(idToken: wrongAudience) } == "INVALID_ID_TOKEN")
        let wrongIssuer = try forged(fixture, from: token) {
            $0["iss"] = "https://securetoken.google.com/another-project"
        }
        #expect(authErrorCode { _ = try service.authContext(idToken: wrongIssuer) } == "INVALID_ID_TOKEN")
        let future = try forged(fixture, from: token) { $0["iat"] = .integer(($0["iat"]?.int64Value ?? 0) + 3600) }
        #expect(authErrorCode { _ = try service.authContext(idToken: future) } == "INVALID_ID_TOKEN")
        let parts = token.split(separator: ".")
        let tampered = "\(parts[0]).\(Base64URL.encode(Array(#"{"sub":"someone-else"}"#.utf8))).\(parts[2])"
        #expect(authErrorCode { _ = try service.authContext(idToken: tampered) } == "INVALID_ID_TOKEN")
        #expect(authErrorCode { _ = try service.authContext(idToken: "not.a.jwt") } == "INVALID_ID_TOKEN")
        #expect(authErrorCode { _ = try service.authContext(idToken: "") } == "INVALID_ID_TOKEN")
        // The genuine token still passes.
        #expect(try service.authContext(idToken: token).uid == jwt.payload["sub"]?.stringValue)
    }

    @Test func expiredTokensAreRejected() throws {
        let fixture = try Fixture()
        let token = try #require(fixture.signUp("c@example.com").tokens?.idToken)
        fixture.time.advance(3599)
        #expect(throws: Never.self) { _ = try fixture.service.authContext(idToken: token) }
        fixture.time.advance(1)
        #expect(authErrorCode { _ = try fixture.service.authContext(idToken: token) } == "TOKEN_EXPIRED")
    }

    @Test func tokensIssuedBeforeValidSinceAreRevoked() throws {
        let fixture = try Fixture()
        let first = try fixture.signUp("d@example.com")
        let old = try #require(first.tokens)
        fixture.time.advance(1)
        var change = UpdateRequest()
        change.idToken = old.idToken
        change.password = "another-pw"
        let updated = try fixture.service.update(change, context: Fixture.client)
        let fresh = try #require(updated.tokens, "a password change answers with new tokens")
        #expect(authErrorCode { _ = try fixture.service.authContext(idToken: old.idToken) } == "TOKEN_EXPIRED")
        #expect(
            authErrorCode {
                _ = try fixture.service.refresh(grantType: "refresh_token", refreshToken: old.refreshToken)
            } == "INVALID_REFRESH_TOKEN")
        #expect(try fixture.service.authContext(idToken: fresh.idToken).uid == first.user.uid)
        #expect(
            try fixture.service.refresh(grantType: "refresh_token", refreshToken: fresh.refreshToken).user.uid
                == first.user.uid)

        // An admin revocation (what revoke_refresh_tokens sends) works the same way.
        fixture.time.advance(1)
        var revoke = UpdateRequest()
        revoke.localID = first.user.uid
        revoke.validSince = fixture.time.clock.seconds
        _ = try fixture.service.update(revoke, context: Fixture.admin)
        #expect(authErrorCode { _ = try fixture.service.authContext(idToken: fresh.idToken) } == "TOKEN_EXPIRED")
        #expect(
            authErrorCode {
                _ = try fixture.service.refresh(grantType: "refresh_token", refreshToken: fresh.refreshToken)
            } == "INVALID_REFRESH_TOKEN")
    }

    @Test func disabledAndDeletedAccountsLoseTheirTokens() throws {
        let fixture = try Fixture()
        let user = try fixture.signUp("e@example.com")
        let tokens = try #require(user.tokens)
        var disable = UpdateRequest()
        disable.localID = user.user.uid
        disable.disableUser = true
        _ = try fixture.service.update(disable, context: Fixture.admin)
        #expect(authErrorCode { _ = try fixture.service.authContext(idToken: tokens.idToken) } == "USER_DISABLED")
        // As Firebase: the refresh of a disabled account says so (issue 14).
        #expect(
            authErrorCode {
                _ = try fixture.service.refresh(grantType: "refresh_token", refreshToken: tokens.refreshToken)
            } == "USER_DISABLED")
        try fixture.service.delete(idToken: nil, localID: user.user.uid, context: Fixture.admin)
        #expect(authErrorCode { _ = try fixture.service.authContext(idToken: tokens.idToken) } == "USER_NOT_FOUND")
    }

    @Test func refreshKeepsTheRefreshTokenAndRenewsTheIDToken() throws {
        let fixture = try Fixture()
        let tokens = try #require(fixture.signUp("f@example.com").tokens)
        fixture.time.advance(4000)
        #expect(authErrorCode { _ = try fixture.service.authContext(idToken: tokens.idToken) } == "TOKEN_EXPIRED")
        let refreshed = try fixture.service.refresh(grantType: "refresh_token", refreshToken: tokens.refreshToken)
        #expect(refreshed.tokens.refreshToken == tokens.refreshToken)
        #expect(try fixture.service.authContext(idToken: refreshed.tokens.idToken).claims["email"] == "f@example.com")
        #expect(
            authErrorCode { _ = try fixture.service.refresh(grantType: "refresh_token", refreshToken: "bogus") }
                == "INVALID_REFRESH_TOKEN")
        #expect(
            authErrorCode { _ = try fixture.service.refresh(grantType: "password", refreshToken: tokens.refreshToken) }
                == "INVALID_GRANT_TYPE")
        #expect(
            authErrorCode { _ = try fixture.service.refresh(grantType: nil, refreshToken: tokens.refreshToken) }
                == "MISSING_GRANT_TYPE")
        #expect(
            authErrorCode { _ = try fixture.service.refresh(grantType: "refresh_token", refreshToken: nil) }
                == "MISSING_REFRESH_TOKEN")
    }

    @Test func rotationKeepsOldTokensValidUntilTheOverlapEnds() throws {
        let fixture = try Fixture()
        let old = try #require(fixture.signUp("g@example.com").tokens)
        let oldKID = try #require(JWT.decode(old.idToken)?.keyID)
        let newKID = try fixture.service.rotateSigningKey()
        #expect(newKID != oldKID)
        #expect(fixture.service.publishedKeys().map { $0["kid"] } == [newKID, oldKID])
        #expect(throws: Never.self) { _ = try fixture.service.authContext(idToken: old.idToken) }
        let refreshed = try fixture.service.refresh(grantType: "refresh_token", refreshToken: old.refreshToken)
        #expect(JWT.decode(refreshed.tokens.idToken)?.keyID == newKID)
        fixture.time.advance(3600 + 301)
        #expect(fixture.service.publishedKeys().map { $0["kid"] } == [newKID])
    }

    @Test func keysAndAccountsSurviveARestart() throws {
        let fixture = try Fixture()
        let tokens = try #require(fixture.signUp("h@example.com").tokens)
        let reopened = try Fixture.open(
            directory: fixture.directory, dev: true, outbox: Outbox(), clock: fixture.time.clock, logs: fixture.logs)
        defer { reopened.close() }
        #expect(try reopened.authContext(idToken: tokens.idToken).claims["email"] == "h@example.com")
        #expect(reopened.publishedKeys() == fixture.service.publishedKeys())
        let keyFile = try #require(
            FileManager.default.contentsOfDirectory(atPath: fixture.directory + "/keys/signing").first {
                $0.hasSuffix(".pem")
            })
        let permissions =
            try FileManager.default.attributesOfItem(atPath: fixture.directory + "/keys/signing/" + keyFile)[
                .posixPermissions] as? Int
        #expect(permissions == 0o600)
    }
}
