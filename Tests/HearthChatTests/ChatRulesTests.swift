import Foundation
import Hearth
import HearthChatCore
import HearthTestSupport
import Testing

/// The chat rules (`Examples/rules/chat.database.rules.json`) as the server enforces them, seen through the SDK the
/// example uses: someone else's posts can be neither read nor written, and an unverified account can do neither
/// with its own.
@Suite("Chat rules enforced on the tree", .chatServer)
@MainActor
struct ChatRulesTests {
    /// Runs `body` and expects the server to refuse it with PERMISSION_DENIED.
    func expectDenied(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            Issue.record("the server allowed: \(what)", sourceLocation: sourceLocation)
        } catch let error as DatabaseError {
            #expect(error.code == .permissionDenied, "\(what): \(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(what): \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("user B cannot read, list, write or delete user A's posts")
    func anotherUsersPosts() async throws {
        let server = try SharedServer.server
        let (alice, _) = try await verifiedModel(server, "alice")
        let id = try await alice.post("for my eyes only")
        let aliceUID = try #require(Auth.auth(app: alice.app).currentUser?.uid)
        let (bob, _) = try await verifiedModel(server, "bob")
        let tree = Database.database(app: bob.app)

        await expectDenied("read A's posts") { _ = try await tree.reference(withPath: "posts/\(aliceUID)").getData() }
        await expectDenied("read one of A's posts") {
            _ = try await tree.reference(withPath: "posts/\(aliceUID)/\(id)").getData()
        }
        await expectDenied("list everyone's posts") { _ = try await tree.reference(withPath: "posts").getData() }
        await expectDenied("post as A") {
            try await tree.reference(withPath: "posts/\(aliceUID)").childByAutoId()
                .setValue(["text": "hi, it's me, alice", "createdAt": ServerValue.timestamp()])
        }
        await expectDenied("edit A's post") {
            try await tree.reference(withPath: "posts/\(aliceUID)/\(id)").updateChildValues(["text": "defaced"])
        }
        await expectDenied("delete A's post") {
            try await tree.reference(withPath: "posts/\(aliceUID)/\(id)").removeValue()
        }

        // A's list is untouched, and B's own node is still B's to use.
        try await alice.post("still mine")
        await waitUntil { alice.posts.count == 2 }
        #expect(alice.posts.map(\.text) == ["for my eyes only", "still mine"])
        try await bob.post("bob's own")
        await waitUntil { bob.posts.count == 1 }
        #expect(bob.posts.map(\.text) == ["bob's own"])
    }

    @Test("an unverified account can neither post nor read, even under its own node")
    func unverifiedAccount() async throws {
        let server = try SharedServer.server
        let app = server.app("carl")
        let user = try await Auth.auth(app: app).createUser(withEmail: uniqueEmail("carl"), password: "correct horse")
            .user
        #expect(!user.isEmailVerified)
        let own = Database.database(app: app).reference(withPath: "posts/\(user.uid)")
        await expectDenied("post unverified") {
            try await own.childByAutoId().setValue(["text": "early", "createdAt": ServerValue.timestamp()])
        }
        await expectDenied("read unverified") { _ = try await own.getData() }
    }

    @Test("a post's shape is the rules': no forged time, no extra fields, no changing createdAt")
    func postShape() async throws {
        let (model, _) = try await verifiedModel(try SharedServer.server, "dora")
        let uid = try #require(Auth.auth(app: model.app).currentUser?.uid)
        let posts = Database.database(app: model.app).reference(withPath: "posts/\(uid)")
        await expectDenied("a post from the future") {
            try await posts.childByAutoId().setValue(["text": "soon", "createdAt": 99_999_999_999_999])
        }
        await expectDenied("an extra field") {
            try await posts.childByAutoId().setValue(
                ["text": "liked", "createdAt": ServerValue.timestamp(), "likes": 1000])
        }
        let id = try await model.post("original")
        await expectDenied("moving createdAt") { try await posts.child("\(id)/createdAt").setValue(0) }
        await waitUntil { model.posts.count == 1 }
        #expect(model.posts.map(\.text) == ["original"])
    }
}
