import Foundation
import HearthCore
import Testing

@testable import HearthAuth

@Suite struct OobCodeTests {
    private func sendVerification(_ fixture: Fixture, idToken: String) throws {
        var request = OobCodeRequest()
        request.requestType = "VERIFY_EMAIL"
        request.idToken = idToken
        _ = try fixture.service.sendOobCode(request, context: Fixture.client)
    }

    @Test func verificationMailCarriesASingleUseLink() throws {
        let fixture = try Fixture()
        let user = try fixture.signUp("ann@example.com")
        try sendVerification(fixture, idToken: try #require(user.tokens?.idToken))
        fixture.service.flushMail()
        let message = try #require(fixture.outbox.entries.last?.message)
        #expect(message.to == "ann@example.com")
        #expect(message.from == "Hearth <noreply@hearth.test>")
        #expect(message.subject == "Verify your email for Hearth")
        #expect(message.text.contains("http://127.0.0.1:9/emulator/action?mode=verifyEmail&oobCode="))
        let code = try fixture.lastCode()
        #expect(fixture.service.issuedCodes.map(\.oobCode) == [code])
        #expect(fixture.service.issuedCodes.first?.requestType == .verifyEmail)
        // The database holds only the code's hash.
        #expect(!fixture.logs.all.contains { $0.contains("ann@example.com") }, "no address in any log line")

        var apply = UpdateRequest()
        apply.oobCode = code
        let applied = try fixture.service.update(apply, context: Fixture.client)
        #expect(applied.user.emailVerified)
        #expect(fixture.service.issuedCodes.isEmpty)
        #expect(authErrorCode { _ = try fixture.service.update(apply, context: Fixture.client) } == "INVALID_OOB_CODE")
        let refreshed = try fixture.service.refresh(
            grantType: "refresh_token", refreshToken: try #require(user.tokens?.refreshToken))
        #expect(try fixture.service.authContext(idToken: refreshed.tokens.idToken).claims["email_verified"] == true)
    }

    @Test func codesExpire() throws {
        let fixture = try Fixture()
        let user = try fixture.signUp("bob@example.com")
        try sendVerification(fixture, idToken: try #require(user.tokens?.idToken))
        let code = try fixture.lastCode()
        fixture.time.advance(3 * 24 * 3600)
        var apply = UpdateRequest()
        apply.oobCode = code
        #expect(authErrorCode { _ = try fixture.service.update(apply, context: Fixture.client) } == "EXPIRED_OOB_CODE")
        #expect(
            authErrorCode {
                _ = try fixture.service.resetPassword(oobCode: "nope", newPassword: nil, context: Fixture.client)
            } == "INVALID_OOB_CODE")
        #expect(
            authErrorCode {
                _ = try fixture.service.resetPassword(oobCode: nil, newPassword: nil, context: Fixture.client)
            } == "MISSING_OOB_CODE")
    }

    @Test func passwordResetChangesThePasswordAndEndsSessions() throws {
        let fixture = try Fixture()
        let user = try fixture.signUp("cy@example.com", "old-password")
        var request = OobCodeRequest()
        request.requestType = "PASSWORD_RESET"
        request.email = "CY@example.com"
        #expect(try fixture.service.sendOobCode(request, context: Fixture.client).email == "cy@example.com")
        let code = try fixture.lastCode()
        #expect(fixture.outbox.entries.last?.message.subject == "Reset your password for Hearth")
        #expect(fixture.outbox.entries.last?.message.text.contains("mode=resetPassword") == true)

        let inspected = try fixture.service.resetPassword(oobCode: code, newPassword: nil, context: Fixture.client)
        #expect(inspected.email == "cy@example.com" && inspected.requestType == .passwordReset)
        #expect(
            authErrorCode {
                _ = try fixture.service.resetPassword(oobCode: code, newPassword: "123", context: Fixture.client)
            } == "WEAK_PASSWORD")
        _ = try fixture.service.resetPassword(oobCode: code, newPassword: "new-password", context: Fixture.client)
        #expect(
            authErrorCode {
                _ = try fixture.service.resetPassword(
                    oobCode: code, newPassword: "new-password", context: Fixture.client)
            } == "INVALID_OOB_CODE")
        #expect(
            authErrorCode {
                _ = try fixture.service.signInWithPassword(
                    email: "cy@example.com", password: "old-password", context: Fixture.client)
            } == "INVALID_PASSWORD")
        #expect(
            try fixture.service.signInWithPassword(
                email: "cy@example.com", password: "new-password", context: Fixture.client
            ).user.emailVerified)
        #expect(
            authErrorCode {
                _ = try fixture.service.refresh(
                    grantType: "refresh_token", refreshToken: try #require(user.tokens?.refreshToken))
            } == "INVALID_REFRESH_TOKEN")

        request.email = "nobody@example.com"
        #expect(
            authErrorCode { _ = try fixture.service.sendOobCode(request, context: Fixture.client) } == "EMAIL_NOT_FOUND"
        )
        request.requestType = nil
        #expect(
            authErrorCode { _ = try fixture.service.sendOobCode(request, context: Fixture.client) }
                == "MISSING_REQ_TYPE")
    }

    @Test func verifyAndChangeEmail() throws {
        let fixture = try Fixture()
        let user = try fixture.signUp("old@example.com")
        try fixture.signUp("taken@example.com")
        var request = OobCodeRequest()
        request.requestType = "VERIFY_AND_CHANGE_EMAIL"
        request.idToken = user.tokens?.idToken
        request.newEmail = "taken@example.com"
        #expect(
            authErrorCode { _ = try fixture.service.sendOobCode(request, context: Fixture.client) } == "EMAIL_EXISTS")
        request.newEmail = "new@example.com"
        _ = try fixture.service.sendOobCode(request, context: Fixture.client)
        fixture.service.flushMail()
        #expect(fixture.outbox.entries.last?.message.to == "new@example.com")
        var apply = UpdateRequest()
        apply.oobCode = try fixture.lastCode()
        let applied = try fixture.service.update(apply, context: Fixture.client)
        #expect(applied.newEmail == "new@example.com")
        #expect(applied.user.email == "new@example.com" && applied.user.emailVerified)
    }

    @Test func adminLinksAreReturnedNotMailed() throws {
        let fixture = try Fixture { $0.authorizedDomains = ["app.example.com"] }
        try fixture.signUp("dee@example.com")
        var request = OobCodeRequest()
        request.requestType = "PASSWORD_RESET"
        request.email = "dee@example.com"
        request.returnOobLink = true
        request.continueURL = "https://app.example.com/done"
        #expect(
            authErrorCode { _ = try fixture.service.sendOobCode(request, context: Fixture.client) }
                == "INSUFFICIENT_PERMISSION")
        let result = try fixture.service.sendOobCode(request, context: Fixture.admin)
        let link = try #require(result.oobLink)
        #expect(link.contains("oobCode=\(try #require(result.oobCode))"))
        #expect(link.contains("continueUrl=https%3A%2F%2Fapp.example.com%2Fdone"))
        fixture.service.flushMail()
        #expect(fixture.outbox.entries.isEmpty)
        request.continueURL = "https://app.example.com.evil.example/done"
        #expect(
            authErrorCode { _ = try fixture.service.sendOobCode(request, context: Fixture.admin) }
                == "UNAUTHORIZED_DOMAIN")
        request.continueURL = "not a url"
        #expect(
            authErrorCode { _ = try fixture.service.sendOobCode(request, context: Fixture.admin) }
                == "INVALID_CONTINUE_URI")
    }

    @Test func productionLinksUseThePublicURLAndOperatorTemplates() throws {
        let templates = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-tpl-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: templates, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: templates) }
        try "Subject: Welcome to %APP_NAME%, %DISPLAY_NAME%\n\nClick %LINK% now.\n".write(
            toFile: templates + "/verify_email.txt", atomically: true, encoding: .utf8)
        try "<a href=\"%LINK%\">%DISPLAY_NAME%</a>".write(
            toFile: templates + "/verify_email.html", atomically: true, encoding: .utf8)
        let fixture = try Fixture(dev: false) {
            $0.publicURL = "https://auth.example.com/"
            $0.mailTemplatesDirectory = templates
            $0.appName = "Chat"
        }
        var signUp = SignUpRequest()
        signUp.email = "eve@example.com"
        signUp.password = "secret-pw"
        signUp.displayName = "<Eve>"
        let user = try fixture.service.signUp(signUp, context: Fixture.client)
        var request = OobCodeRequest()
        request.requestType = "VERIFY_EMAIL"
        request.idToken = user.tokens?.idToken
        _ = try fixture.service.sendOobCode(request, context: Fixture.client)
        fixture.service.flushMail()
        let message = try #require(fixture.outbox.entries.last?.message)
        #expect(message.subject == "Welcome to Chat, <Eve>")
        #expect(message.text.hasPrefix("Click https://auth.example.com/__/auth/action?mode=verifyEmail&oobCode="))
        #expect(message.html?.contains("&lt;Eve&gt;") == true)
        #expect(fixture.service.issuedCodes.isEmpty, "codes are listed only in development mode")
        #expect(!fixture.logs.all.contains { $0.contains("oobCode") }, "links are logged only in development mode")
    }
}
