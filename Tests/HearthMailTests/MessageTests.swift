import HearthMail
import Testing

@Suite struct MessageTests {
    @Test func addressesAreExtracted() {
        let message = MailMessage(
            from: "Hearth <noreply@hearth.test>", to: " ann@example.com ", subject: "s", text: "t")
        #expect(message.senderAddress == "noreply@hearth.test")
        #expect(message.recipientAddress == "ann@example.com")
    }

    @Test func outboxKeepsTheNewestMessages() throws {
        let outbox = Outbox(capacity: 2)
        for index in 1...3 {
            try outbox.send(MailMessage(from: "a@hearth.test", to: "b@example.com", subject: "\(index)", text: "t"))
        }
        #expect(outbox.entries.map(\.message.subject) == ["2", "3"])
        #expect(outbox.entries.map(\.sequence) == [2, 3])
        outbox.removeAll()
        #expect(outbox.entries.isEmpty)
    }

    @Test func headerInjectionIsRefused() {
        let outbox = Outbox()
        let error = #expect(throws: MailError.self) {
            try outbox.send(
                MailMessage(from: "a@hearth.test", to: "b@example.com\r\nBcc: c@example.com", subject: "s", text: "t"))
        }
        #expect(error?.kind == .invalidMessage)
        #expect(throws: MailError.self) {
            try outbox.send(MailMessage(from: "a@hearth.test", to: "b@example.com", subject: "s\nX: y", text: "t"))
        }
        #expect(throws: MailError.self) {
            try outbox.send(MailMessage(from: "a@hearth.test", to: "not-an-address", subject: "s", text: "t"))
        }
        #expect(outbox.entries.isEmpty)
    }
}
