import Foundation
import Hearth
import HearthTestSupport
import Synchronization
import Testing

@Suite("Database (tree) against a real server", .sharedServer)
struct DatabaseIntegrationTests {
    func root() throws -> DatabaseReference {
        Database.database(app: try SharedServer.server.app()).reference().child(unique("tree"))
    }

    @Test func setReadUpdateRemove() async throws {
        let room = try root().child("rooms/lobby")
        try await room.setValue(["title": "Lobby", "members": ["ann": true], "size": 2, "ratio": 0.5])
        let snapshot = try await room.getData()
        #expect(snapshot.exists())
        #expect(snapshot.key == "lobby")
        #expect(snapshot.childSnapshot(forPath: "title").value as? String == "Lobby")
        #expect(snapshot.childSnapshot(forPath: "members/ann").value as? Bool == true)
        #expect(snapshot.childSnapshot(forPath: "size").value as? Int == 2)
        #expect(snapshot.childSnapshot(forPath: "ratio").value as? Double == 0.5)
        #expect(snapshot.childrenCount == 4)

        try await room.updateChildValues(["title": "Main", "members/bob": true, "size": NSNull()])
        let updated = try await room.getData()
        #expect(updated.childSnapshot(forPath: "title").value as? String == "Main")
        #expect(updated.childSnapshot(forPath: "members").childrenCount == 2)
        #expect(!updated.hasChild("size"))

        try await room.child("title").removeValue()
        #expect(!(try await room.child("title").getData().exists()))
        try await room.removeValue()
        #expect(!(try await room.getData().exists()))
        #expect(try await room.getData().value == nil)
    }

    @Test func pushKeysAreOrderedAndServerValuesResolve() async throws {
        let messages = try root().child("messages")
        var keys: [String] = []
        for text in ["one", "two", "three"] {
            let child = messages.childByAutoId()
            keys.append(child.key ?? "")
            try await child.setValue(["text": text, "at": ServerValue.timestamp()])
        }
        #expect(keys.allSatisfy { $0.count == 20 })
        #expect(keys == keys.sorted())
        let snapshot = try await messages.getData()
        #expect(snapshot.childList.map { $0.key } == keys)
        let at = try #require(snapshot.childList.first?.childSnapshot(forPath: "at").value as? Int)
        #expect(abs(Double(at) / 1000 - Date().timeIntervalSince1970) < 60)

        let counter = try root().child("visits")
        try await counter.setValue(ServerValue.increment(1))
        try await counter.setValue(ServerValue.increment(2))
        #expect(try await counter.getData().value as? Int == 3)
    }

    @Test func queries() async throws {
        let scores = try root().child("scores")
        try await scores.setValue([
            "ann": ["score": 50], "bob": ["score": 90], "cid": ["score": 70], "dan": ["score": 10],
        ])
        let top = try await scores.queryOrdered(byChild: "score").queryLimited(toLast: 2).getData()
        #expect(top.childList.map { $0.key } == ["cid", "bob"])
        let range = try await scores.queryOrdered(byChild: "score").queryStarting(atValue: 40).queryEnding(atValue: 80)
            .getData()
        #expect(range.childList.map { $0.key } == ["ann", "cid"])
        let first = try await scores.queryOrderedByKey().queryLimited(toFirst: 2).getData()
        #expect(first.childList.map { $0.key } == ["ann", "bob"])
        let equal = try await scores.queryOrdered(byChild: "score").queryEqual(toValue: 10).getData()
        #expect(equal.childList.map { $0.key } == ["dan"])
        let ranks = try root().child("ranks")
        try await ranks.setValue(["x": 3, "y": 1, "z": 2])
        let lowest = try await ranks.queryOrderedByValue().queryLimited(toFirst: 2).getData()
        #expect(lowest.childList.map { $0.key } == ["y", "z"])
        let tasks = try root().child("tasks")
        for (key, priority) in [("p", 3), ("q", 1), ("r", 2)] {
            try await tasks.child(key).setValue(["title": key], andPriority: priority)
        }
        let next = try await tasks.queryOrderedByPriority().queryLimited(toFirst: 1).getData()
        #expect(next.childList.map { $0.key } == ["q"])
        #expect(next.childSnapshot(forPath: "q/title").value as? String == "q")
    }

    @Test func transactionsUnderContention() async throws {
        let counter = try root().child("counter")
        try await counter.setValue(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<5 {
                        let (committed, _) = try await counter.runTransactionBlock { data in
                            data.value = ((data.value as? Int) ?? 0) + 1
                            return .success(withValue: data)
                        }
                        #expect(committed)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await counter.getData().value as? Int == 20)
        let (committed, snapshot) = try await counter.runTransactionBlock { _ in .abort() }
        #expect(!committed)
        #expect(snapshot.value as? Int == 20)
    }

    @Test func signedInWritesCarryTheToken() async throws {
        let server = try SharedServer.server
        let app = server.app()
        let uid = try await Auth.auth(app: app).createUser(withEmail: uniqueEmail(), password: "correct horse").user.uid
        let reference = Database.database(app: app).reference().child(unique("users")).child(uid)
        try await reference.setValue(["name": "Ann"])
        #expect(try await reference.child("name").getData().value as? String == "Ann")
    }
}

@Suite("Database observers against a real server", .sharedServer)
struct DatabaseObserverTests {
    final class Inbox: Sendable {
        private let items = Mutex<[String]>([])
        func add(_ item: String) { items.withLock { $0.append(item) } }
        var all: [String] { items.withLock { $0 } }

        func wait(_ predicate: ([String]) -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if predicate(all) { return }
                try await Task.sleep(for: .milliseconds(20))
            }
            Issue.record("timed out; have \(all)")
        }
    }

    @Test func twoClientsObserveValueAndChildEvents() async throws {
        let server = try SharedServer.server
        let path = unique("room")
        let writer = Database.database(app: server.app("writer")).reference(withPath: path)
        let reader = Database.database(app: server.app("reader")).reference(withPath: path)
        try await writer.child("messages/m1").setValue(["text": "hi"])
        let values = Inbox()
        let events = Inbox()
        let messages = reader.child("messages")
        let valueHandle = messages.observe(.value) { snapshot in values.add("\(snapshot.childrenCount)") }
        messages.observe(.childAdded) { events.add("added \($0.key)") }
        messages.observe(.childChanged) { events.add("changed \($0.key)") }
        messages.observe(.childRemoved) { events.add("removed \($0.key)") }
        try await values.wait { $0.last == "1" }
        try await events.wait { $0.contains("added m1") }
        try await writer.child("messages/m2").setValue(["text": "yo"])
        try await values.wait { $0.last == "2" }
        try await events.wait { $0.contains("added m2") }
        try await writer.child("messages/m1/text").setValue("edited")
        try await events.wait { $0.contains("changed m1") }
        try await writer.child("messages").updateChildValues(["m2": NSNull(), "m3/text": "new"])
        try await events.wait { $0.contains("removed m2") && $0.contains("added m3") }
        messages.removeObserver(withHandle: valueHandle)
        messages.removeAllObservers()
        try await Task.sleep(for: .milliseconds(200))
        let count = events.all.count + values.all.count
        try await writer.child("messages/m4").setValue(["text": "late"])
        try await Task.sleep(for: .milliseconds(300))
        #expect(events.all.count + values.all.count == count, "no events after removeAllObservers()")
    }

    @Test func singleEventsFireOnceForEveryEventType() async throws {
        let server = try SharedServer.server
        let path = unique("single")
        let writer = Database.database(app: server.app("writer")).reference(withPath: path)
        let reader = Database.database(app: server.app("reader")).reference(withPath: path)
        try await writer.setValue(["a": 1, "b": 2])
        let events = Inbox()
        reader.observeSingleEvent(of: .value) { events.add("value \($0.childrenCount)") }
        reader.observeSingleEvent(of: .childAdded) { events.add("added \($0.key)") }
        reader.observeSingleEvent(of: .childChanged) { events.add("changed \($0.key)") }
        reader.observeSingleEvent(of: .childRemoved) { events.add("removed \($0.key)") }
        try await events.wait { $0.contains("value 2") && $0.contains("added a") }
        try await writer.child("b").setValue(3)
        try await events.wait { $0.contains("changed b") }
        try await writer.child("a").removeValue()
        try await events.wait { $0.contains("removed a") }
        // Each fired once and stopped: later changes of every kind reach none of them.
        try await writer.child("c").setValue(4)
        try await writer.child("b").setValue(5)
        try await writer.child("c").removeValue()
        try await Task.sleep(for: .milliseconds(300))
        #expect(events.all.sorted() == ["added a", "changed b", "removed a", "value 2"])
    }
}
