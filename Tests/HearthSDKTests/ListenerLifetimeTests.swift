import Foundation
import Hearth
import HearthTestSupport
import Synchronization
import Testing

/// Firebase's lifetimes: a listener or observer lives until it is removed, whether or not the app keeps what the
/// registration call returned (Firebase's own snippets discard it).
@Suite("Listeners live until removed", .sharedServer, .timeLimit(.minutes(1)))
struct ListenerLifetimeTests {
    @Test func anUnretainedSnapshotListenerKeepsFiringUntilRemoved() async throws {
        let callbacks = TestQueue()
        let db = Firestore.firestore(app: try SharedServer.server.app())
        let settings = db.settings
        settings.dispatchQueue = callbacks.queue
        db.settings = settings
        let document = db.collection(unique("lifetime")).document("one")
        let titles = Events<String>()
        // Only a weak reference survives this statement: the app keeps nothing.
        weak let registration = document.addSnapshotListener { snapshot, _ in
            titles.add(snapshot?.data()?["title"] as? String ?? "-")
        }
        #expect(await titles.next() == "-")
        try await document.setData(["title": "a"])
        #expect(await titles.next { $0 == "a" } == "a")
        try await document.setData(["title": "b"])
        #expect(await titles.next { $0 == "b" } == "b")

        let live = try #require(registration, "the listener holds its registration until remove()")
        callbacks.run { live.remove() }
        try await document.setData(["title": "c"])
        callbacks.drain()
        #expect(!titles.all.contains("c"), "no call after remove()")
    }

    @Test func anObserverWhoseHandleIsDroppedKeepsFiringUntilRemoveAllObservers() async throws {
        let callbacks = TestQueue()
        let database = Database.database(app: try SharedServer.server.app())
        database.callbackQueue = callbacks.queue
        let node = database.reference().child(unique("lifetime"))
        let values = Events<Int>()
        node.observe(.value) { snapshot in values.add(snapshot.value as? Int ?? 0) }
        try await node.setValue(1)
        #expect(await values.next { $0 == 1 } == 1)
        try await node.setValue(2)
        #expect(await values.next { $0 == 2 } == 2)
        callbacks.run { node.removeAllObservers() }
        try await node.setValue(3)
        callbacks.drain()
        #expect(!values.all.contains(3), "no call after removeAllObservers()")
    }

    @Test func aStateListenerWhoseHandleIsDroppedKeepsFiring() async throws {
        let callbacks = TestQueue()
        let auth = Auth.auth(app: try SharedServer.server.app())
        auth.callbackQueue = callbacks.queue
        let signedIn = Events<Bool>()
        auth.addStateDidChangeListener { _, user in signedIn.add(user != nil) }
        #expect(await signedIn.next() == false)
        try await auth.signInAnonymously()
        #expect(await signedIn.next() == true)
        try auth.signOut()
        #expect(await signedIn.next() == false)
    }
}
