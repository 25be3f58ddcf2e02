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
