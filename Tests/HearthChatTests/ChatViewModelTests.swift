import Foundation
import Hearth
import HearthChatCore
import HearthTestSupport
import Testing

/// Signs up a new user on a fresh app and verifies the address through the dev outbox: a model ready to post.
@MainActor
func verifiedModel(_ server: TestServer, _ label: String) async throws -> (model: ChatViewModel, email: String) {
    let model = ChatViewModel(app: server.app(label), timeZone: .gmt)
    let email = uniqueEmail(label)
    try await model.signUp(email: email, password: "correct horse")
    try await model.verifyFromDevOutbox()
    await waitUntil { model.postsLoaded }
    return (model, email)
}

@Suite("Chat view model: the seed's flow against a real server", .chatServer)
@MainActor
struct ChatViewModelTests {
    @Test("posting waits for a verified email; a post gets the server's time")
    func signUpVerifyPost() async throws {
        let server = try SharedServer.server
        let model = ChatViewModel(app: server.app("ann"), timeZone: .gmt)
        let email = uniqueEmail("ann")
        try await model.signUp(email: email, password: "correct horse")
        #expect(model.phase == .awaitingVerification(email: email))
        await #expect(throws: ChatError.emailNotVerified) { try await model.post("too early") }
        await #expect(throws: ChatError.emailNotVerified) { try await model.checkVerification() }

        try await model.verifyFromDevOutbox()
        #expect(model.phase == .chatting(email: email))
        await waitUntil { model.postsLoaded }
        #expect(model.posts.isEmpty)

        let id = try await model.post("  hello, tree  ")
        await waitUntil { model.posts.count == 1 }
        #expect(model.posts.map(\.text) == ["hello, tree"], "trimmed")
        #expect(model.posts.first?.id == id)
        // The stored createdAt is the server's number, not the client's placeholder, and the list shows it.
        let uid = try #require(Auth.auth(app: model.app).currentUser?.uid)
        let stored = try await Database.database(app: model.app).reference(withPath: "posts/\(uid)/\(id)").getData()
        let millis = try #require((stored.value as? [String: Any])?["createdAt"] as? Int)
        let shown = try #require(model.posts.first).createdAt
        #expect(shown == Date(timeIntervalSince1970: Double(millis) / 1000))
        #expect(model.dateText(shown).wholeMatch(of: /\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}/) != nil)
    }

    @Test("edit keeps the creation time and marks the edit; delete removes; bad input never reaches the server")
    func editAndDelete() async throws {
        let (model, _) = try await verifiedModel(try SharedServer.server, "bea")
        let first = try await model.post("first")
        let second = try await model.post("second")
        await waitUntil { model.posts.count == 2 }
        #expect(model.posts.map(\.text) == ["first", "second"], "oldest first")
        let created = try #require(model.posts.first).createdAt

        try await model.edit(first, text: "first, edited")
        await waitUntil { model.posts.first?.text == "first, edited" }
        let edited = try #require(model.posts.first)
        #expect(edited.text == "first, edited")
        #expect(edited.createdAt == created)
        #expect(edited.editedAt != nil)
        #expect(model.posts.map(\.id) == [first, second], "an edit does not reorder")

        try await model.delete(second)
        await waitUntil { model.posts.count == 1 }
        #expect(model.posts.map(\.id) == [first])
        await #expect(throws: ChatError.noSuchPost) { try await model.delete(second) }
        await #expect(throws: ChatError.noSuchPost) { try await model.edit(second, text: "resurrected") }

        await #expect(throws: ChatError.emptyMessage) { try await model.post("   ") }
        await #expect(throws: ChatError.messageTooLong) {
            try await model.post(String(repeating: "x", count: ChatPost.maxLength + 1))
        }
        try await model.post(String(repeating: "y", count: ChatPost.maxLength))
        await waitUntil { model.posts.count == 2 }
        #expect(model.posts.map(\.text.count) == ["first, edited".count, ChatPost.maxLength])
    }

    @Test("sign out closes the list; signing in again (or restarting the app) brings the posts back")
    func signOutAndBackIn() async throws {
        let server = try SharedServer.server
        let (model, email) = try await verifiedModel(server, "cai")
        try await model.post("still here")
        await waitUntil { model.posts.count == 1 }

        try model.signOut()
        #expect(model.phase == .signedOut)
        #expect(model.posts.isEmpty)
        await #expect(throws: ChatError.notSignedIn) { try await model.post("signed out") }
        await #expect(throws: ChatError.account("Wrong email or password.")) {
            try await model.signIn(email: email, password: "wrong horse")
        }
        #expect(model.phase == .signedOut)

        try await model.signIn(email: email, password: "correct horse")
        #expect(model.phase == .chatting(email: email))
        await waitUntil { model.posts.count == 1 }
        #expect(model.posts.map(\.text) == ["still here"])

        // A restart: the same app name and session directory, a new process-level app and model.
        HearthApp.configure(name: model.app.name, options: model.app.options)
        let restarted = ChatViewModel(app: try #require(HearthApp.app(name: model.app.name)), timeZone: .gmt)
        #expect(restarted.phase == .chatting(email: email))
        await waitUntil { restarted.posts.count == 1 }
        #expect(restarted.posts.map(\.text) == ["still here"])
        try restarted.signOut()
    }

    @Test("the accounts service's refusals read as sentences")
    func accountErrors() async throws {
        let server = try SharedServer.server
        let model = ChatViewModel(app: server.app("dan"), timeZone: .gmt)
        let email = uniqueEmail("dan")
        await #expect(throws: ChatError.account("Choose a longer password (at least 6 characters).")) {
            try await model.signUp(email: email, password: "abc")
        }
        await #expect(throws: ChatError.account("That is not a valid email address.")) {
            try await model.signUp(email: "not-an-address", password: "correct horse")
        }
        try await model.signUp(email: email, password: "correct horse")
        try model.signOut()
        await #expect(throws: ChatError.account("That email address already has an account: sign in instead.")) {
            try await model.signUp(email: email, password: "correct horse")
        }
        // Signing in before verifying lands on the verification step again.
        try await model.signIn(email: email, password: "correct horse")
        #expect(model.phase == .awaitingVerification(email: email))
        try await model.resendVerification()
        try await model.verifyFromDevOutbox()
        #expect(model.phase == .chatting(email: email))
    }
}

@Suite("Chat view model: post dates")
@MainActor
struct ChatDateTests {
    @Test("dates read yyyy/MM/dd HH:mm in the model's time zone")
    func format() throws {
        // No server is needed: the app points at a closed port and is never asked anything.
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-chat-dates-\(UUID())")
        defer { try? FileManager.default.removeItem(at: storage) }
        let name = "dates-\(UUID())"
        HearthApp.configure(
            name: name,
            options: HearthOptions(
                serverURL: URL(string: "http://127.0.0.1:9")!, projectID: "demo", storageDirectory: storage))
        let app = try #require(HearthApp.app(name: name))
        defer { app.delete() }
        let moment = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14T22:13:20Z
        #expect(ChatViewModel(app: app, timeZone: .gmt).dateText(moment) == "2023/11/14 22:13")
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        #expect(ChatViewModel(app: app, timeZone: tokyo).dateText(moment) == "2023/11/15 07:13")
        #expect(ChatViewModel(app: app, timeZone: .gmt).dateText(Date(timeIntervalSince1970: 0)) == "1970/01/01 00:00")
    }
}
