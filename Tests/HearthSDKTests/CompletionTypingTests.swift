import Foundation
import Hearth
import HearthTestSupport
import Testing

/// A view controller as Firebase apps write one: main-actor state changed straight from completions, listeners and
/// observers. With `@Sendable` callback types this did not compile in Swift 6 mode; with Firebase's plain closure
/// types it does, and the callbacks run on the main queue, where the state lives.
@MainActor
private final class ProfileViewController {
    var names: [String] = []
    var titles: [String] = []
    var saved = false
    var treeWriteFailed = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func load(tree: DatabaseReference, documents: CollectionReference) {
        tree.observe(.value) { snapshot in
            self.names = snapshot.children.allObjects.compactMap { ($0 as? DataSnapshot)?.value as? String }
            self.changed()
        }
        documents.addSnapshotListener { snapshot, error in
            self.titles = snapshot?.documents.compactMap { $0.get("title") as? String } ?? []
            self.changed()
        }
    }

    func save(tree: DatabaseReference, documents: CollectionReference) {
        tree.child("a").setValue("Ann") { error, _ in
            self.treeWriteFailed = error != nil
            self.changed()
        }
        documents.document("d").setData(["title": "Hello"]) { error in
            self.saved = error == nil
            self.changed()
        }
    }

    private func changed() {
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }

    /// Waits, without polling, until `condition` holds.
    func wait(until condition: () -> Bool) async {
        while !condition() { await withCheckedContinuation { waiters.append($0) } }
    }
}

@Suite("Completions typed as Firebase's: plain closures that may update main-actor state", .sharedServer)
@MainActor
struct CompletionTypingTests {
    @Test func mainActorStateChangesFromCallbacks() async throws {
        let app = try SharedServer.server.app()
        let tree = Database.database(app: app).reference().child(unique("profiles"))
        let documents = Firestore.firestore(app: app).collection(unique("profiles"))
        let screen = ProfileViewController()
        screen.load(tree: tree, documents: documents)
        screen.save(tree: tree, documents: documents)
        await screen.wait { screen.names == ["Ann"] && screen.titles == ["Hello"] && screen.saved }
        #expect(!screen.treeWriteFailed)
    }
}
