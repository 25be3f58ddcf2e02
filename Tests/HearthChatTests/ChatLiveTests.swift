import Foundation
import Hearth
import HearthChatCore
import HearthTestSupport
import Testing

/// Two view models against one server, as two terminals running `hearth-chat` would be.
@Suite("Chat view models see each other live", .chatServer)
@MainActor
struct ChatLiveTests {
    @Test("the same user on two devices: a post, an edit and a delete on one appear on the other")
    func sameUserTwoDevices() async throws {
        let server = try SharedServer.server
        let (phone, email) = try await verifiedModel(server, "eve")
        let laptop = ChatViewModel(app: server.app("eve-laptop"), timeZone: .gmt)
        try await laptop.signIn(email: email, password: "correct horse")
        #expect(laptop.phase == .chatting(email: email))
        await waitUntil { laptop.postsLoaded }
        #expect(laptop.posts.isEmpty)

        let id = try await phone.post("from the phone")
        await waitUntil { laptop.posts.map(\.text) == ["from the phone"] }
        #expect(laptop.posts.map(\.text) == ["from the phone"])

        try await laptop.edit(id, text: "edited on the laptop")
        await waitUntil { phone.posts.first?.text == "edited on the laptop" }
        #expect(phone.posts.map(\.text) == ["edited on the laptop"])
        #expect(phone.posts.first?.editedAt != nil)

        try await laptop.post("second, from the laptop")
        await waitUntil { phone.posts.count == 2 }
        #expect(phone.posts.map(\.text) == ["edited on the laptop", "second, from the laptop"])

        try await phone.delete(id)
        await waitUntil { laptop.posts.count == 1 && phone.posts.count == 1 }
        #expect(laptop.posts.map(\.text) == ["second, from the laptop"])
        #expect(phone.posts == laptop.posts)
    }

    @Test("two users: each list holds only its owner's posts, live")
    func twoUsersSeparateLists() async throws {
        let server = try SharedServer.server
        let (alice, _) = try await verifiedModel(server, "alice")
        let (bob, _) = try await verifiedModel(server, "bob")
        try await alice.post("alice 1")
        try await bob.post("bob 1")
        try await alice.post("alice 2")
        await waitUntil { alice.posts.count == 2 && bob.posts.count == 1 }
        #expect(alice.posts.map(\.text) == ["alice 1", "alice 2"])
        #expect(bob.posts.map(\.text) == ["bob 1"])
    }
}
