import Foundation
import Hearth
import HearthTestSupport
import Testing

/// What a test needs from one `.value` event of a tree location: the counter `n` and how many `items` there are.
struct TreeSeen: Sendable, Equatable {
    var n: Int?
    var items: Int

    init(n: Int?, items: Int) {
        self.n = n
        self.items = items
    }

    init(_ snapshot: DataSnapshot) {
        n = snapshot.childSnapshot(forPath: "n").value as? Int
        items = Int(snapshot.childSnapshot(forPath: "items").childrenCount)
    }
}

@Suite("Tree writes while the server is down", .timeLimit(.minutes(1)))
struct DatabaseOfflineTests {
    @Test func offlineWritesRaiseObserversAtOnceAndAreSentWhenTheServerIsBack() async throws {
        var server = try await TestServer.start()
        let port = server.port
        let directory = server.directory
        defer { server.stop() }
        let db = Database.database(app: server.app())
        let path = unique("offline")
        let location = db.reference(withPath: path)
        try await location.setValue(["n": 1])
        let seen = Events<TreeSeen>()
        let handle = location.observe(.value) { seen.add(TreeSeen($0)) }
        defer { location.removeObserver(withHandle: handle) }
        #expect(await seen.next() == TreeSeen(n: 1, items: 0))

        await server.halt()
        // Completion forms: queued in this order before each call returns; each block runs on the acknowledgement.
        let answers = Events<String>()
        location.child("items").childByAutoId().setValue("milk") { error, _ in answers.add("push \(error == nil)") }
        location.updateChildValues(["n": ServerValue.increment(2), "title": "list"]) { error, _ in
            answers.add("update \(error == nil)")
        }
        location.child("gone").removeValue { error, _ in answers.add("remove \(error == nil)") }
        #expect(await seen.next { $0.n == 3 } == TreeSeen(n: 3, items: 1), "local events before the server is back")
        let offline = try await location.getData()
        #expect(offline.childSnapshot(forPath: "n").value as? Int == 3)
        #expect(offline.childSnapshot(forPath: "title").value as? String == "list")
        #expect(answers.all.isEmpty, "nothing is acknowledged while the server is down")

        server = try await TestServer.start(directory: directory, port: port)
        #expect(await answers.next() == "push true")
        #expect(await answers.next() == "update true")
        #expect(await answers.next() == "remove true")
        // A client without the queue or the cache sees each write applied once.
        let fresh = try await Database.database(app: server.app("fresh")).reference(withPath: path)
            .getData()
        #expect(TreeSeen(fresh) == TreeSeen(n: 3, items: 1))
        #expect(fresh.childSnapshot(forPath: "title").value as? String == "list")
    }

    @Test func queuedWritesSurviveAClientRestartWithPersistence() async throws {
        var server = try await TestServer.start()
        let port = server.port
        let directory = server.directory
        defer { server.stop() }
        let name = "relaunch-\(UUID().uuidString.prefix(8))"
        let first = Database.database(app: server.app(named: name))
        first.isPersistenceEnabled = true
        let path = unique("relaunch")
        try await first.reference(withPath: path).setValue(["n": 1])
        await server.halt()

        first.reference(withPath: path).child("n").setValue(ServerValue.increment(1)) { _, _ in }
        first.reference(withPath: path).child("items/a").setValue(true) { _, _ in }
        #expect(TreeSeen(try await first.reference(withPath: path).getData()) == TreeSeen(n: 2, items: 1))
        // The process "quits": this instance sends nothing more; its queue is on disk.
        first.goOffline()
        HearthApp.app(name: name)?.delete()

        let relaunched = Database.database(app: server.app(named: name))
        #expect(relaunched !== first)
        relaunched.isPersistenceEnabled = true
        let seen = Events<TreeSeen>()
        let reference = relaunched.reference(withPath: path)
        let handle = reference.observe(.value) { seen.add(TreeSeen($0)) }
        defer { reference.removeObserver(withHandle: handle) }
        #expect(await seen.next() == TreeSeen(n: 2, items: 1), "the cache and the queue survived the relaunch")

        server = try await TestServer.start(directory: directory, port: port)
        let done = Events<Bool>()
        reference.child("after").setValue(true) { error, _ in done.add(error == nil) }
        #expect(await done.next(), "queued behind the relaunched writes, acknowledged after them")
        let stored = try await Database.database(app: server.app("check")).reference(withPath: path).getData()
        #expect(TreeSeen(stored) == TreeSeen(n: 2, items: 1), "each queued write applied exactly once")
    }

    @Test func aLocalWriteRaisesObserversBeforeTheCallReturnsAndARefusedOneIsTakenBack() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let callbacks = TestQueue()
        let location = Database.database(app: server.app()).reference(withPath: unique("local"))
        location.database.callbackQueue = callbacks.queue
        try await location.setValue(["n": 1])
        let seen = Events<TreeSeen>()
        let handle = location.observe(.value) { seen.add(TreeSeen($0)) }
        defer { location.removeObserver(withHandle: handle) }
        #expect(await seen.next() == TreeSeen(n: 1, items: 0))

        let answers = Events<String>()
        // The events are queued as the call runs (they run after it returns, before the server's answer).
        callbacks.run {
            location.child("n").setValue(ServerValue.increment(4)) { error, _ in
                answers.add("increment \(error == nil)")
            }
        }
        callbacks.drain()
        #expect(seen.all.last == TreeSeen(n: 5, items: 0), "raised as setValue ran, server value estimated")
        // A key the server refuses ('.' is not allowed): shown at once, then taken back out when the server says no.
        callbacks.run {
            location.child("items/bad.key").setValue(true) { error, _ in
                answers.add("refused \((error as? DatabaseError)?.code == .invalidArgument)")
            }
        }
        callbacks.drain()
        #expect(seen.all.contains(TreeSeen(n: 5, items: 1)))
        #expect(await answers.next() == "increment true")
        #expect(await answers.next() == "refused true")
        #expect(await seen.next { $0.items == 0 } == TreeSeen(n: 5, items: 0))
        #expect(TreeSeen(try await location.getData()) == TreeSeen(n: 5, items: 0))
    }

    @Test func queriesAreAnsweredLocallyWithinTheirWindowWhileOffline() async throws {
        var server = try await TestServer.start()
        let port = server.port
        let directory = server.directory
        defer { server.stop() }
        let callbacks = TestQueue()
        let location = Database.database(app: server.app()).reference(withPath: unique("scores"))
        location.database.callbackQueue = callbacks.queue
        try await location.setValue(["a": ["s": 1], "b": ["s": 2], "c": ["s": 3]])
        let top = location.queryOrdered(byChild: "s").queryLimited(toLast: 2)
        let seen = Events<[String]>()
        let handle = top.observe(.value) { snapshot in seen.add(snapshot.childList.compactMap(\.key)) }
        defer { top.removeObserver(withHandle: handle) }
        #expect(await seen.next() == ["b", "c"])

        await server.halt()
        location.child("d").setValue(["s": 0]) { _, _ in }
        location.child("e").setValue(["s": 9]) { _, _ in }
        callbacks.drain()
        #expect(seen.all.last == ["c", "e"], "a local write outside the window stays out; one inside pushes b out")
        let offline = try await location.queryOrdered(byChild: "s").queryLimited(toFirst: 2).getData()
        #expect(offline.childList.compactMap(\.key) == ["d", "a"], "answered from the cached location")

        server = try await TestServer.start(directory: directory, port: port)
        let done = Events<Bool>()
        location.child("f").setValue(["s": 5]) { error, _ in done.add(error == nil) }
        #expect(await done.next())
        #expect(await seen.next { $0 == ["f", "e"] } == ["f", "e"])
    }
}
