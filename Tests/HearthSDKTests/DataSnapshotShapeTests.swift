import Foundation
import Hearth
import HearthTestSupport
import Testing

/// `DataSnapshot` as Firebase declares it, so the tutorials' code means the same here.
@Suite("DataSnapshot's shape", .sharedServer, .timeLimit(.minutes(1)))
struct DataSnapshotShapeTests {
    @Test func editingAChildByItsSnapshotKeyWritesThatChild() async throws {
        let posts = Database.database(app: try SharedServer.server.app()).reference().child(unique("posts"))
        try await posts.childByAutoId().setValue(["title": "first"])
        let listed = try await posts.getData()
        let post = try #require(listed.children.first)
        // The seed's edit: `child("\(snap.key)")` — with an optional key it wrote to a child named "Optional(…)".
        try await posts.child("\(post.key)").updateChildValues(["title": "edited"])
        let after = try await posts.getData()
        #expect(after.childrenCount == 1, "edited in place, not added")
        #expect(after.childSnapshot(forPath: "\(post.key)/title").value as? String == "edited")
    }
}

/// The tutorials' synchronous calls: `setValue(_:)`, `updateChildValues(_:)` and `removeValue()` in a method that is
/// not `async`, fire-and-forget as in Firebase.
@Suite("Fire-and-forget tree writes", .sharedServer, .timeLimit(.minutes(1)))
struct FireAndForgetTreeWriteTests {
    /// A method without `async`, as the tutorial's view controller has.
    func edit(_ list: DatabaseReference) {
        list.child("a").setValue(["title": "one"])
        list.child("b").setValue("two", andPriority: 1)
        list.child("a").updateChildValues(["title": "edited"])
        list.child("c").setValue(3)
        list.child("c").removeValue()
    }

    @Test func synchronousWritesAreQueuedInOrderAndReachTheServer() async throws {
        let list = Database.database(app: try SharedServer.server.app()).reference().child(unique("sync"))
        edit(list)
        // Writes are sent in order: once a later one is acknowledged, the earlier ones are applied too.
        try await list.child("done").setValue(true)
        let stored = try await list.getData()
        #expect(stored.childSnapshot(forPath: "a/title").value as? String == "edited")
        #expect(stored.childSnapshot(forPath: "b").value as? String == "two")
        #expect(!stored.hasChild("c"))
    }
}
