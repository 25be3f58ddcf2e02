import HearthCore
import Testing

@testable import HearthAuth

@Suite struct SignUpSignInTests {
    @Test func signUpValidatesAndRefusesDuplicates() throws {
        let fixture = try Fixture()
        let first = try fixture.signUp("Ann@Example.com")
        #expect(first.user.email == "ann@example.com")
        #expect(first.user.passwordHash?.hasPrefix("$argon2id$") == true)
        #expect(first.isNewUser)
        #expect(authErrorCode { try fixture.signUp("ANN@example.com") } == "EMAIL_EXISTS")
        #expect(authErrorCode { try fixture.signUp("not-an-email") } == "INVALID_EMAIL")
        #expect(authErrorCode { try fixture.signUp("b@example.com", "") } == "MISSING_PASSWORD")
        let weak = #expect(throws: AuthError.self) { try fixture.signUp("b@example.com", "12345") }
        #expect(weak?.message == "WEAK_PASSWORD : Password should be at least 6 characters")
        var noEmail = SignUpRequest()
        noEmail.password = "secret-pw"
        #expect(authErrorCode { _ = try fixture.service.signUp(noEmail, context: Fixture.client) } == "MISSING_EMAIL")
        var chosenID = SignUpRequest()
        chosenID.localID = "mine"
        #expect(
            authErrorCode { _ = try fixture.service.signUp(chosenID, context: Fixture.client) }
                == "UNEXPECTED_PARAMETER")
    }

    @Test func anonymousUserUpgradesByLinkingEmailAndPassword() throws {
        let fixture = try Fixture()
        let anonymous = try fixture.service.signUp(SignUpRequest(), context: Fixture.client)
        #expect(anonymous.user.isAnonymous)
        let token = try #require(anonymous.tokens?.idToken)
        let context = try fixture.service.authContext(idToken: token)
        #expect(context.signInProvider == "anonymous")
        #expect(context.claims["provider_id"] == "anonymous")

        var link = SignUpRequest()
        link.idToken = token
        link.email = "linked@example.com"
        link.password = "secret-pw"
        let linked = try fixture.service.signUp(link, context: Fixture.client)
        #expect(linked.user.uid == anonymous.user.uid)
        #expect(!linked.isNewUser)
        let signedIn = try fixture.service.signInWithPassword(
            email: "linked@example.com", password: "secret-pw", context: Fixture.client)
        #expect(signedIn.user.uid == anonymous.user.uid)
    }

    @Test func signInErrors() throws {
        let fixture = try Fixture()
        let user = try fixture.signUp("c@example.com")
        let service = fixture.service
        let ok = try service.signInWithPassword(email: "C@example.com", password: "secret-pw", context: Fixture.client)
        #expect(ok.user.uid == user.user.uid)
        #expect(ok.user.lastLoginAt != nil)
        #expect(
            authErrorCode {
                _ = try service.signInWithPassword(
                    email: "nobody@example.com", password: "secret-pw", context: Fixture.client)
            } == "EMAIL_NOT_FOUND")
        #expect(
            authErrorCode {
                _ = try service.signInWithPassword(
                    email: "c@example.com", password: "wrong-pw", context: Fixture.client)
            } == "INVALID_PASSWORD")
        #expect(
            authErrorCode { _ = try service.signInWithPassword(email: nil, password: "x", context: Fixture.client) }
                == "MISSING_EMAIL")
        #expect(
            authErrorCode {
                _ = try service.signInWithPassword(email: "c@example.com", password: nil, context: Fixture.client)
            } == "MISSING_PASSWORD")
        #expect(
            authErrorCode { _ = try service.signInWithPassword(email: "bad", password: "x", context: Fixture.client) }
                == "INVALID_EMAIL")

        var disable = UpdateRequest()
        disable.localID = user.user.uid
        disable.disableUser = true
        _ = try service.update(disable, context: Fixture.admin)
        #expect(
            authErrorCode {
                _ = try service.signInWithPassword(
                    email: "c@example.com", password: "secret-pw", context: Fixture.client)
            } == "USER_DISABLED")
        // A wrong password on a disabled account says nothing about the account being disabled.
        #expect(
            authErrorCode {
                _ = try service.signInWithPassword(
                    email: "c@example.com", password: "wrong-pw", context: Fixture.client)
            } == "INVALID_PASSWORD")
    }

    @Test func enumerationProtectionAnswersAlike() throws {
        let fixture = try Fixture { $0.emailEnumerationProtection = true }
        try fixture.signUp("d@example.com")
        let service = fixture.service
        #expect(
            authErrorCode {
                _ = try service.signInWithPassword(
                    email: "nobody@example.com", password: "secret-pw", context: Fixture.client)
            } == "INVALID_LOGIN_CREDENTIALS")
        #expect(
            authErrorCode {
                _ = try service.signInWithPassword(
                    email: "d@example.com", password: "wrong-pw", context: Fixture.client)
            } == "INVALID_LOGIN_CREDENTIALS")
        var reset = OobCodeRequest()
        reset.requestType = "PASSWORD_RESET"
        reset.email = "nobody@example.com"
        #expect(try service.sendOobCode(reset, context: Fixture.client).email == "nobody@example.com")
        service.flushMail()
        #expect(fixture.outbox.entries.isEmpty, "no mail goes to an address without an account")
    }

    @Test func weakerHashesAreUpgradedAtSignIn() throws {
        let fixture = try Fixture()
        try fixture.signUp("e@example.com")
        let reopened = try Fixture.open(
            directory: fixture.directory, dev: true, outbox: fixture.outbox, clock: fixture.time.clock,
            logs: fixture.logs
        ) { $0.passwordHashIterations = 2 }
        defer { reopened.close() }
        let before = try #require(
            reopened.lookup(uids: [], emails: ["e@example.com"], phoneNumbers: []).first?.passwordHash)
        #expect(before.contains("t=1"))
        _ = try reopened.signInWithPassword(email: "e@example.com", password: "secret-pw", context: Fixture.client)
        let after = try #require(
            reopened.lookup(uids: [], emails: ["e@example.com"], phoneNumbers: []).first?.passwordHash)
        #expect(after.contains("t=2"))
        _ = try reopened.signInWithPassword(email: "e@example.com", password: "secret-pw", context: Fixture.client)
    }

    @Test func customTokensInDevelopmentMode() throws {
        let fixture = try Fixture()
        let unsigned = JWT.unsigned(payload: [
            "aud": .string(CustomTokens.audience), "uid": "custom-1", "claims": ["role": "editor"],
            "iss": "firebase-auth-emulator@example.com", "sub": "firebase-auth-emulator@example.com",
        ])
        let first = try fixture.service.signInWithCustomToken(unsigned, context: Fixture.client)
        #expect(first.isNewUser)
        #expect(first.user.uid == "custom-1")
        let context = try fixture.service.authContext(idToken: try #require(first.tokens?.idToken))
        #expect(context.claims["role"] == "editor")
        #expect(context.signInProvider == "custom")
        // The extra claims survive a refresh.
        let refreshed = try fixture.service.refresh(
            grantType: "refresh_token", refreshToken: try #require(first.tokens?.refreshToken))
        #expect(try fixture.service.authContext(idToken: refreshed.tokens.idToken).claims["role"] == "editor")
        #expect(
            try fixture.service.signInWithCustomToken(#"{"uid":"custom-1"}"#, context: Fixture.client).isNewUser
                == false)

        let wrongAudience = JWT.unsigned(payload: ["aud": "demo-test", "uid": "x"])
        #expect(
            authErrorCode { _ = try fixture.service.signInWithCustomToken(wrongAudience, context: Fixture.client) }
                == "INVALID_CUSTOM_TOKEN")
        let reserved = JWT.unsigned(payload: [
            "aud": .string(CustomTokens.audience), "uid": "x", "claims": ["firebase": 1],
        ])
        #expect(
            authErrorCode { _ = try fixture.service.signInWithCustomToken(reserved, context: Fixture.client) }
                == "FORBIDDEN_CLAIM")
        let noUID = JWT.unsigned(payload: ["aud": .string(CustomTokens.audience)])
        #expect(
            authErrorCode { _ = try fixture.service.signInWithCustomToken(noUID, context: Fixture.client) }
                == "MISSING_IDENTIFIER")
    }
}
