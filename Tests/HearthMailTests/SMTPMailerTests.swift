import Foundation
import HearthMail
import Testing

@Suite struct SMTPMailerTests {
    @Test func deliversToARealSMTPConversation() throws {
        let server = try FakeSMTPServer()
        defer { server.stop() }
        var configuration = SMTPConfiguration(
            host: "127.0.0.1", port: server.port, security: .none, username: "mailer", password: "s3cret",
            from: "Hearth <noreply@hearth.test>")
        configuration.timeoutSeconds = 10
        let mailer = SMTPMailer(configuration: configuration)
        let link = "http://127.0.0.1:1/emulator/action?mode=verifyEmail&oobCode=abc"
        try mailer.send(
            MailMessage(
                from: "", to: "Ann <ann@example.com>", subject: "Vérifiez votre adresse", text: "Follow \(link)\n"))

        let received = try #require(server.messages.first)
        #expect(received.mailFrom == "<noreply@hearth.test>")
        #expect(received.recipients == ["<ann@example.com>"])
        #expect(received.authenticated == "mailer:s3cret")
        #expect(received.data.contains("From: Hearth <noreply@hearth.test>"))
        #expect(received.data.contains("To: Ann <ann@example.com>"))
        #expect(received.data.contains("Subject: =?UTF-8?B?"))
        #expect(received.data.contains("Content-Transfer-Encoding: base64"))
        let body = received.data.components(separatedBy: "\r\n\r\n").dropFirst().joined()
        let decoded = Data(base64Encoded: body.replacingOccurrences(of: "\r\n", with: "")).map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(decoded == "Follow \(link)\n")
    }

    @Test func refusedRecipientIsATransportError() throws {
        let server = try FakeSMTPServer(rejectRecipients: true)
        defer { server.stop() }
        let mailer = SMTPMailer(
            configuration: SMTPConfiguration(
                host: "127.0.0.1", port: server.port, security: .none, from: "a@hearth.test"))
        let error = #expect(throws: MailError.self) {
            try mailer.send(MailMessage(from: "", to: "nobody@example.com", subject: "s", text: "t"))
        }
        #expect(error?.kind == .transport)
        #expect(server.messages.isEmpty)
    }

    @Test func unreachableServerIsATransportError() throws {
        // Bind and close a listener to get a port that nothing listens on.
        let server = try FakeSMTPServer()
        let port = server.port
        server.stop()
        var configuration = SMTPConfiguration(host: "127.0.0.1", port: port, security: .none, from: "a@hearth.test")
        configuration.timeoutSeconds = 5
        let error = #expect(throws: MailError.self) {
            try SMTPMailer(configuration: configuration).send(
                MailMessage(from: "", to: "b@example.com", subject: "s", text: "t"))
        }
        #expect(error?.kind == .transport)
    }

    @Test func startTLSIsRequiredWhenConfigured() throws {
        // The fake server does not offer STARTTLS; a mailer configured for it must refuse to send in the clear.
        let server = try FakeSMTPServer()
        defer { server.stop() }
        var configuration = SMTPConfiguration(
            host: "127.0.0.1", port: server.port, security: .startTLS, from: "a@hearth.test")
        configuration.timeoutSeconds = 5
        #expect(throws: MailError.self) {
            try SMTPMailer(configuration: configuration).send(
                MailMessage(from: "", to: "b@example.com", subject: "s", text: "t"))
        }
        #expect(server.messages.isEmpty)
    }
}
