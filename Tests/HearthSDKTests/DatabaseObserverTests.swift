import Foundation
import Hearth
import HearthTestSupport
import Synchronization
import Testing

@Suite("Database observers: shared streams, keepSynced, childMoved", .sharedServer, .timeLimit(.minutes(1)))
struct DatabaseObserverSharingTests {
    func root() throws -> DatabaseReference {
        Database.database(app: try SharedServer.server.app()).reference().child(unique("observers"))
    }

    @Test func aSecondObserverOfALocationSharesItsStreamAndHearsAtOnce() async throws {
        let scores = try root()
        let callbacks = TestQueue()
        scores.database.callbackQueue = callbacks.queue
        try await scores.setValue(["a": 1, "b": 2])
        let first = Events<Int>()
        let firstHandle = scores.observe(.value) { first.add(Int($0.childrenCount)) }
        defer { scores.removeObserver(withHandle: firstHandle) }
        #expect(await first.next() == 2)

        let second = Events<Int>()
        let secondHandle = callbacks.run {
            let handle = scores.observe(.childAdded) { child in second.add(child.value as? Int ?? 0) }
            #expect(second.all == [], "events run after observe returns")
            return handle
        }
        callbacks.drain()
        #expect(second.all == [1, 2], "the shared copy answered as observe ran, without waiting for the server")
        try await scores.child("c").setValue(3)
        #expect(await first.next() == 3)
        #expect(await second.next { $0 == 3 } == 3)
        scores.removeObserver(withHandle: secondHandle)
        try await scores.child("d").setValue(4)
        #expect(await first.next() == 4, "removing one observer leaves the shared stream to the other")
        #expect(second.all == [1, 2, 3])
    }

    @Test func keepSyncedHoldsTheStreamForLaterObservers() async throws {
        let location = try root()
        let callbacks = TestQueue()
        location.database.callbackQueue = callbacks.queue
        try await location.setValue(["x": true])
        location.keepSynced(true)
        defer { location.keepSynced(false) }
        let warmUp = Events<Bool>()
        let handle = location.observe(.value) { warmUp.add($0.exists()) }
        #expect(await warmUp.next() == true)
        location.removeObserver(withHandle: handle)
        // The stream stayed open for keepSynced, so a new observer's first event is queued from it as observe runs.
        let later = Mutex<Bool?>(nil)
        let laterHandle = callbacks.run {
            location.observe(.value) { snapshot in later.withLock { $0 = snapshot.exists() } }
        }
        defer { location.removeObserver(withHandle: laterHandle) }
        callbacks.drain()
        #expect(later.withLock { $0 } == true)
    }

    @Test func childMovedReportsAChildWhoseOrderChanged() async throws {
        let scores = try root()
        try await scores.setValue(["a": ["score": 1], "b": ["score": 2], "c": ["score": 3]])
        let ordered = scores.queryOrdered(byChild: "score")
        let moved = Events<String>()
        let changed = Events<String>()
        let movedHandle = ordered.observe(.childMoved) { moved.add($0.key) }
        let changedHandle = ordered.observe(.childChanged) { changed.add($0.key) }
        defer {
            ordered.removeObserver(withHandle: movedHandle)
            ordered.removeObserver(withHandle: changedHandle)
        }
        let value = Events<[String]>()
        let valueHandle = ordered.observe(.value) { value.add($0.childList.compactMap(\.key)) }
        defer { ordered.removeObserver(withHandle: valueHandle) }
        #expect(await value.next() == ["a", "b", "c"])

        try await scores.child("b/score").setValue(20)  // b moves after c
        #expect(await value.next() == ["a", "c", "b"])
        #expect(await changed.next() == "b")
        #expect(await moved.next() == "b")
        try await scores.child("a/score").setValue(0)  // changes but stays first: no move
        #expect(await value.next() == ["a", "c", "b"])
        #expect(await changed.next() == "a")
        try await scores.child("c/score").setValue(30)  // passes b
        #expect(await value.next() == ["a", "b", "c"])
        #expect(await moved.next() == "c")
        #expect(moved.all == ["b", "c"], "a child that kept its place is not reported as moved")
    }
}
