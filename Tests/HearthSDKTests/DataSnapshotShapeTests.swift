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
        let post = try #require(listed.childList.first)
        // The seed's edit: `child("\(snap.key)")` — with an optional key it wrote to a child named "Optional(…)".
        try await posts.child("\(post.key)").updateChildValues(["title": "edited"])
        let after = try await posts.getData()
        #expect(after.childrenCount == 1, "edited in place, not added")
        #expect(after.childSnapshot(forPath: "\(post.key)/title").value as? String == "edited")
    }
}

extension DataSnapshot {
    /// The children as an app reads Firebase's `NSEnumerator`: `allObjects` cast to snapshots.
    var childList: [DataSnapshot] { children.allObjects.compactMap { $0 as? DataSnapshot } }
}

/// `children` is an `NSEnumerator` of snapshots, as Firebase declares it.
@Suite("DataSnapshot.children as Firebase's NSEnumerator", .sharedServer, .timeLimit(.minutes(1)))
struct DataSnapshotChildrenTests {
    @Test func childrenEnumerateAsSnapshotsInQueryOrder() async throws {
        let scores = Database.database(app: try SharedServer.server.app()).reference().child(unique("scores"))
        try await scores.setValue(["ann": 3, "bob": 1, "cid": 2])
        let byValue = try await scores.queryOrderedByValue().getData()
        // The three ways the tutorials read it.
        let all = try #require(byValue.children.allObjects as? [DataSnapshot])
        #expect(all.map(\.key) == ["bob", "cid", "ann"])
        var iterated: [String] = []
        for child in byValue.children {
            iterated.append((child as? DataSnapshot)?.key ?? "not a snapshot")
        }
        #expect(iterated == ["bob", "cid", "ann"])
        let enumerator = byValue.children
        var pulled: [Int] = []
        while let child = enumerator.nextObject() as? DataSnapshot { pulled.append(child.value as? Int ?? -1) }
        #expect(pulled == [1, 2, 3])
        #expect(enumerator.nextObject() == nil, "an enumerator ends once")
        let leaf = try await scores.child("ann").getData()
        #expect(leaf.children.allObjects.isEmpty)
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
