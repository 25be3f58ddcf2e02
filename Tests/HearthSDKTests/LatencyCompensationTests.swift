import Foundation
import Hearth
import HearthTestSupport
import Testing

/// What a test needs from one document snapshot.
struct Seen: Sendable, Equatable {
    var value: Int?
    var pending: Bool
    var fromCache: Bool
}

/// What a test needs from one query snapshot.
struct SeenQuery: Sendable, Equatable {
    var ids: [String]
    var values: [Int]
    var pending: Bool
    var fromCache: Bool

    init(ids: [String], values: [Int], pending: Bool, fromCache: Bool) {
        self.ids = ids
        self.values = values
        self.pending = pending
        self.fromCache = fromCache
    }

    init(_ snapshot: QuerySnapshot) {
        ids = snapshot.documents.map(\.documentID)
        values = snapshot.documents.compactMap { $0.get("n") as? Int }
        pending = snapshot.metadata.hasPendingWrites
        fromCache = snapshot.metadata.isFromCache
    }
}

@Suite("Latency compensation against a real server", .timeLimit(.minutes(1)))
struct LatencyCompensationTests {
    @Test func aLocalWriteRaisesListenersBeforeTheServerAnswers() async throws {
        let server = try await TestServer.start()
        defer { server.stop() }
        let db = Firestore.firestore(app: server.app())
        let collection = db.collection(unique("lc"))
        let reference = collection.document("d")
        let document = Events<Seen>()
        let documentListener = reference.addSnapshotListener(includeMetadataChanges: true) { snapshot, _ in
            guard let snapshot else { return }
            document.add(
                Seen(
                    value: snapshot.get("n") as? Int, pending: snapshot.metadata.hasPendingWrites,
                    fromCache: snapshot.metadata.isFromCache))
        }
        defer { documentListener.remove() }
        let query = Events<SeenQuery>()
        let queryListener = collection.order(by: "n").addSnapshotListener { snapshot, _ in
            if let snapshot { query.add(SeenQuery(snapshot)) }
        }
        defer { queryListener.remove() }
        #expect(await document.next() == Seen(value: nil, pending: false, fromCache: false))
        #expect(await query.next() == SeenQuery(ids: [], values: [], pending: false, fromCache: false))

        try await reference.setData(["n": 1])
        // By the time the write's await resumes, the listeners have seen it pending and then acknowledged.
        #expect(
            document.all.suffix(2) == [
                Seen(value: 1, pending: true, fromCache: false), Seen(value: 1, pending: false, fromCache: false),
            ])
        #expect(query.all.count == 2, "no metadata-only snapshot without includeMetadataChanges")
        #expect(query.all.last == SeenQuery(ids: ["d"], values: [1], pending: true, fromCache: false))

        try await reference.updateData(["n": FieldValue.increment(Int64(4))])
        #expect(document.all.suffix(2).map(\.value) == [5, 5])
        #expect(document.all.suffix(2).map(\.pending) == [true, false])
        #expect(query.all.last?.values == [5])

        // A second client's write arrives from the server, never pending.
        let other = Firestore.firestore(app: server.app("other"))
        try await other.document(reference.path).updateData(["n": 6])
        #expect(await document.next { $0.value == 6 } == Seen(value: 6, pending: false, fromCache: false))
        #expect(await query.next { $0.values == [6] }.pending == false)
    }

    @Test func listenersWorkOfflineFromTheCacheAndCatchUp() async throws {
        var server = try await TestServer.start()
        let port = server.port
        let directory = server.directory
        defer { server.stop() }
        let db = Firestore.firestore(app: server.app())
        let collection = db.collection(unique("offline_listen"))
        try await collection.document("a").setData(["n": 1])
        let first = Events<SeenQuery>()
        let firstListener = collection.order(by: "n").addSnapshotListener(includeMetadataChanges: true) {
            snapshot, _ in
            if let snapshot { first.add(SeenQuery(snapshot)) }
        }
        defer { firstListener.remove() }
        #expect(
            await first.next { !$0.fromCache } == SeenQuery(ids: ["a"], values: [1], pending: false, fromCache: false))

        await server.halt()
        #expect(await first.next().fromCache == true, "losing the server is a metadata change")
        // A listener added while offline answers at once from the cache the first one filled.
        let second = Events<SeenQuery>()
        let secondListener = collection.order(by: "n").addSnapshotListener { snapshot, _ in
            if let snapshot { second.add(SeenQuery(snapshot)) }
        }
        defer { secondListener.remove() }
        #expect(await second.next() == SeenQuery(ids: ["a"], values: [1], pending: false, fromCache: true))

        let add = Task { try await collection.document("b").setData(["n": 2]) }
        let bump = Task { try await collection.document("a").updateData(["n": FieldValue.increment(Int64(10))]) }
        let expected = SeenQuery(ids: ["b", "a"], values: [2, 11], pending: true, fromCache: true)
        #expect(await second.next { $0.ids.count == 2 && $0.values == [2, 11] } == expected)
        #expect(await first.next { $0.values == [2, 11] } == expected)
        let cached = try await collection.order(by: "n").getDocuments()
        #expect(cached.metadata.isFromCache && cached.metadata.hasPendingWrites)

        server = try await TestServer.start(directory: directory, port: port)
        try await add.value
        try await bump.value
        let caughtUp = await first.next { !$0.fromCache && !$0.pending }
        #expect(
            caughtUp == SeenQuery(ids: ["b", "a"], values: [2, 11], pending: false, fromCache: false),
            "snapshots: \(first.all)")
        let delivered = try await collection.order(by: "n").getDocuments(source: .server)
        #expect(delivered.documents.map { $0.get("n") as? Int } == [2, 11], "each queued write applied once")
        #expect(second.all.allSatisfy { $0.values != [2, 21] }, "the increment never shows twice")
    }

    @Test func pendingWritesShowAfterAClientRestartAndAreSentOnce() async throws {
        var server = try await TestServer.start()
        let port = server.port
        let directory = server.directory
        defer { server.stop() }
        let app = server.app()
        let path = "\(unique("relaunch"))/counter"
        try await Firestore.firestore(app: app).document(path).setData(["n": 1])
        _ = try await Firestore.firestore(app: app).document(path).getDocument()  // cached for offline use
        await server.halt()

        let before = Firestore.firestore(app: app)
        let queued = Events<Seen>()
        let watcher = before.document(path).addSnapshotListener { snapshot, _ in
            guard let snapshot else { return }
            queued.add(
                Seen(value: snapshot.get("n") as? Int, pending: snapshot.metadata.hasPendingWrites, fromCache: true))
        }
        let abandoned = Task { try await before.document(path).updateData(["n": FieldValue.increment(Int64(1))]) }
        _ = await queued.next { $0.pending }
        watcher.remove()
        // The process "quits": its Firestore stops, the queued increment stays on disk.
        await before.terminate()
        await #expect(throws: FirestoreErrorCode.self) { try await abandoned.value }

        let relaunched = Firestore.firestore(app: app)
        #expect(relaunched !== before)
        let seen = Events<Seen>()
        let listener = relaunched.document(path).addSnapshotListener(includeMetadataChanges: true) { snapshot, _ in
            guard let snapshot else { return }
            seen.add(
                Seen(
                    value: snapshot.get("n") as? Int, pending: snapshot.metadata.hasPendingWrites,
                    fromCache: snapshot.metadata.isFromCache))
        }
        defer { listener.remove() }
        #expect(await seen.next() == Seen(value: 2, pending: true, fromCache: true), "the queue survived the relaunch")

        server = try await TestServer.start(directory: directory, port: port)
        #expect(await seen.next { !$0.pending && !$0.fromCache } == Seen(value: 2, pending: false, fromCache: false))
        let stored = try await relaunched.document(path).getDocument(source: .server)
        #expect(stored.get("n") as? Int == 2, "the increment was applied exactly once")
    }
}
