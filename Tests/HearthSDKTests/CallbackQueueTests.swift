import Foundation
import Hearth
import HearthTestSupport
import Synchronization
import Testing

/// Firebase's threading: every observer, listener and completion runs on the service's callback queue, never inside
/// the call that caused it, and a write's local event comes before its completion (the server's acknowledgement).
/// Each test makes its calls on a custom serial queue and checks, in the callbacks, that they run on that queue and
/// that the call had returned by then.
@Suite("Callbacks run on the callback queue, after the call", .sharedServer, .timeLimit(.minutes(1)))
struct CallbackQueueTests {
    /// What a callback saw: its name, whether it ran on the test queue, and whether the triggering call had returned.
    struct Call: Sendable, Equatable {
        var name: String
        var onQueue: Bool
        var afterCall: Bool
    }

    @Test func treeObserversAndCompletionsRunOnTheCallbackQueueAfterTheWrite() async throws {
        let callbacks = TestQueue()
        let database = Database.database(app: try SharedServer.server.app())
        database.callbackQueue = callbacks.queue
        let list = database.reference().child(unique("rows"))
        try await list.setValue(["a": 1, "b": 2])
        let returned = Mutex(false)
        let calls = Events<Call>()
        @Sendable func record(_ name: String) {
            calls.add(Call(name: name, onQueue: callbacks.isCurrent, afterCall: returned.withLock { $0 }))
        }
        let handle = list.observe(.childRemoved) { child in record("removed \(child.key)") }
        defer { list.removeObserver(withHandle: handle) }
        // The observer's first events (none for childRemoved) are queued; let them pass before the write.
        callbacks.drain()

        callbacks.run {
            list.child("a").removeValue { error, _ in record(error == nil ? "completed" : "failed") }
            #expect(calls.all.isEmpty, "no callback runs inside removeValue")
            returned.withLock { $0 = true }
        }
        #expect(await calls.next() == Call(name: "removed a", onQueue: true, afterCall: true))
        #expect(await calls.next() == Call(name: "completed", onQueue: true, afterCall: true))
    }

    @Test func treeGetDataAndSingleEventsRunOnTheCallbackQueue() async throws {
        let callbacks = TestQueue()
        let database = Database.database(app: try SharedServer.server.app())
        database.callbackQueue = callbacks.queue
        let node = database.reference().child(unique("single"))
        try await node.setValue("x")
        let calls = Events<Bool>()
        node.getData { _, snapshot in calls.add(callbacks.isCurrent && snapshot?.value as? String == "x") }
        node.observeSingleEvent(of: .value) { snapshot in
            calls.add(callbacks.isCurrent && snapshot.value as? String == "x")
        }
        #expect(await calls.next() == true)
        #expect(await calls.next() == true)
    }

    @Test func documentListenersAndCompletionsRunOnTheDispatchQueueAfterTheWrite() async throws {
        let callbacks = TestQueue()
        let db = Firestore.firestore(app: try SharedServer.server.app())
        let settings = db.settings
        settings.dispatchQueue = callbacks.queue
        db.settings = settings
        #expect(db.settings.dispatchQueue === callbacks.queue)
        let document = db.collection(unique("tasks")).document("one")
        try await document.setData(["title": "a"])
        let first = Events<Bool>()
        let registration = document.addSnapshotListener { snapshot, _ in
            first.add(callbacks.isCurrent && snapshot?.data()?["title"] as? String == "a")
        }
        defer { registration.remove() }
        #expect(await first.next() == true)

        let returned = Mutex(false)
        let calls = Events<Call>()
        let second = document.addSnapshotListener { snapshot, _ in
            guard snapshot?.data()?["title"] as? String == "b" else { return }
            let pending = snapshot?.metadata.hasPendingWrites == true
            calls.add(
                Call(
                    name: pending ? "local" : "server", onQueue: callbacks.isCurrent,
                    afterCall: returned.withLock { $0 }))
        }
        defer { second.remove() }
        callbacks.run {
            document.updateData(["title": "b"]) { error in
                calls.add(
                    Call(name: error == nil ? "completed" : "failed", onQueue: callbacks.isCurrent, afterCall: true))
            }
            #expect(calls.all.isEmpty, "no callback runs inside updateData")
            returned.withLock { $0 = true }
        }
        #expect(await calls.next() == Call(name: "local", onQueue: true, afterCall: true))
        #expect(await calls.next { $0.name != "server" } == Call(name: "completed", onQueue: true, afterCall: true))
    }

    @Test func authListenersAndCompletionsRunOnTheCallbackQueue() async throws {
        let callbacks = TestQueue()
        let auth = Auth.auth(app: try SharedServer.server.app())
        auth.callbackQueue = callbacks.queue
        let returned = Mutex(false)
        let calls = Events<Call>()
        let handle = callbacks.run {
            let handle = auth.addStateDidChangeListener { _, user in
                calls.add(
                    Call(
                        name: user == nil ? "signed out" : "signed in", onQueue: callbacks.isCurrent,
                        afterCall: returned.withLock { $0 }))
            }
            #expect(calls.all.isEmpty, "the listener's first call comes after addStateDidChangeListener returns")
            returned.withLock { $0 = true }
            return handle
        }
        defer { auth.removeStateDidChangeListener(handle) }
        #expect(await calls.next() == Call(name: "signed out", onQueue: true, afterCall: true))
        auth.signInAnonymously { result, _ in
            calls.add(Call(name: result == nil ? "failed" : "completed", onQueue: callbacks.isCurrent, afterCall: true))
        }
        #expect(await calls.next() == Call(name: "signed in", onQueue: true, afterCall: true))
        #expect(await calls.next() == Call(name: "completed", onQueue: true, afterCall: true))
    }
}
