import Foundation
import Hearth
import HearthModels
import HearthTestSupport
import Observation
import Synchronization
import Testing

/// Set once, from any thread.
final class Flag: Sendable {
    private let state = Mutex(false)
    func raise() { state.withLock { $0 = true } }
    var isRaised: Bool { state.withLock { $0 } }
}

@Suite("Data sources against a real server")
struct DataSourceTests {
    /// Every step a data source reported, checked as a list view would use it.
    final class Recorder: Sendable {
        let steps = Mutex<[DocumentList<Item>.Snapshot]>([])
        func record(_ step: DocumentList<Item>.Snapshot) { steps.withLock { $0.append(step) } }
        var last: [Document<Item>]? { steps.withLock { $0.last?.after } }

        /// Each step starts where the previous one ended, and its changes turn `before` into `after`.
        func verify() {
            let steps = steps.withLock { $0 }
            var previous: [String] = []
            for step in steps {
                #expect(step.before.map(\.id) == previous, "a step starts from the previous list")
                let animated = step.changes.applied(to: step.before, from: step.after, key: \.id)
                #expect(animated.map(\.id) == step.after.map(\.id))
                #expect(animated.map(\.data) == step.after.map(\.data), "reloads and inserts carry the new data")
                previous = step.after.map(\.id)
            }
        }
    }

    @Test("order, where and limit; onChanged reports the first results and each change with animatable indices")
    func builders() async throws {
        try await withServer { server in
            let db = Firestore.firestore(app: server.app())
            let items = db.collection(unique("items"))
            for rank in 1...5 {
                try await Document(id: "i\(rank)", Item(name: "n\(rank)", rank: rank), in: items).save()
            }
            try await Document(id: "other", Item(name: "other", rank: 0), in: items).save()
            let recorder = Recorder()
            let source = DocumentList<Item>(items).where(.whereField("rank", isGreaterThan: 0))
                .order(by: "rank", descending: true).limit(3)
                .onChanged(recorder.record).listen()
            defer { source.stop() }
            #expect(await eventually { recorder.last?.map(\.documentID) == ["i5", "i4", "i3"] })
            // i1 moves to the top; i4 is deleted; a new i9 enters between.
            var moved = try #require(try await Document<Item>.get(items.document("i1")))
            moved[\.rank] = 10
            try await moved.update()
            try await items.document("i4").delete()
            try await Document(id: "i9", Item(name: "n9", rank: 9), in: items).save()
            #expect(await eventually { recorder.last?.map(\.documentID) == ["i1", "i9", "i5"] })
            recorder.verify()
            let got = try await DocumentList<Item>(items).order(by: "rank").limit(2).get()
            #expect(got.after.map(\.documentID) == ["other", "i2"])
            #expect(got.changes.insertions == [0, 1])
        }
    }

    @Test("indices stay valid under concurrent inserts, deletes and moves from several clients")
    func concurrentChanges() async throws {
        try await withServer { server in
            let writers = (0..<3).map { Firestore.firestore(app: server.app("writer\($0)")) }
            let reader = Firestore.firestore(app: server.app("reader"))
            let name = unique("items")
            for rank in 0..<20 {
                try await Document(id: "d\(rank)", Item(name: "n\(rank)", rank: rank), in: writers[0].collection(name))
                    .save()
            }
            let recorder = Recorder()
            let source = DocumentList<Item>(reader.collection(name)).order(by: "rank").onChanged(recorder.record)
                .listen()
            defer { source.stop() }
            #expect(await eventually { recorder.last?.count == 20 })
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, writer) in writers.enumerated() {
                    group.addTask {
                        var generator = SplitMix(seed: UInt64(index))
                        for round in 0..<8 {
                            let batch = Batch(writer)
                            let collection = writer.collection(name)
                            for _ in 0..<3 {
                                let id = "d\(Int.random(in: 0..<30, using: &generator))"
                                let rank = Int.random(in: -50...50, using: &generator)
                                switch Int.random(in: 0..<3, using: &generator) {
                                case 0: batch.delete(Document(id: id, Item(name: id, rank: 0), in: collection))
                                default:
                                    try batch.save(
                                        Document(
                                            id: id, Item(name: "\(id)-\(index)-\(round)", rank: rank), in: collection))
                                }
                            }
                            try await batch.commit()
                        }
                    }
                }
                try await group.waitForAll()
            }
            let expected = try await DocumentList<Item>(reader.collection(name)).order(by: "rank").get().after
            #expect(await eventually { recorder.last?.map(\.data) == expected.map(\.data) })
            #expect(recorder.steps.withLock { $0.count } > 2)
            recorder.verify()
        }
    }

    @Test("next() adds a page and keeps every loaded page live; stop() ends the updates")
    func paging() async throws {
        try await withServer { server in
            let db = Firestore.firestore(app: server.app())
            let items = db.collection(unique("items"))
            for rank in 1...7 {
                try await Document(id: "p\(rank)", Item(name: "n\(rank)", rank: rank), in: items).save()
            }
            let recorder = Recorder()
            let source = DocumentList<Item>(items).order(by: "rank").limit(3).onChanged(recorder.record).listen()
            #expect(await eventually { recorder.last?.count == 3 })
            #expect(try await source.next() == true)
            #expect(source.documents.map(\.documentID) == ["p1", "p2", "p3", "p4", "p5", "p6"])
            #expect(recorder.steps.withLock { $0.last?.changes.insertions } == [3, 4, 5])
            #expect(try await source.next() == false, "the third page holds only one document")
            #expect(source.documents.count == 7)
            // Changes in the first and the last page both arrive through the one widened listener.
            var first = try #require(try await Document<Item>.get(items.document("p1")))
            first[\.name] = "first, edited"
            try await first.update()
            try await items.document("p7").delete()
            #expect(
                await eventually { source.documents.first?[\.name] == "first, edited" && source.documents.count == 6 })
            recorder.verify()

            source.stop()
            #expect(!source.isListening)
            let stepsAtStop = recorder.steps.withLock { $0.count }
            try await items.document("p2").delete()
            // The write is acknowledged; a fresh read sees it while the stopped source does not.
            #expect(try await DocumentList<Item>(items).order(by: "rank").get().after.count == 5)
            #expect(source.documents.count == 6)
            #expect(recorder.steps.withLock { $0.count } == stepsAtStop)
        }
    }

    @Test("collection groups and the retrieve hook (mapping and leaving out)")
    func collectionGroupAndRetrieve() async throws {
        try await withServer { server in
            let db = Firestore.firestore(app: server.app())
            let group = unique("notes")
            // The same ID under two parents: both are listed, told apart by path.
            try await Document(id: "same", Item(name: "alpha", rank: 1), in: db.collection("users/a/\(group)")).save()
            try await Document(id: "same", Item(name: "beta", rank: 2), in: db.collection("users/b/\(group)")).save()
            try await Document(id: "hidden", Item(name: "hidden", rank: 3), in: db.collection("users/b/\(group)"))
                .save()
            let source = DocumentList<Item>(db.collectionGroup(group)).retrieve { snapshot in
                var document = try Document<Item>(snapshot: snapshot)
                guard document[\.name] != "hidden" else { return nil }
                document[\.name] = document[\.name].uppercased()
                return document
            }
            let names = try await source.get().after.map { $0[\.name] }
            #expect(names.sorted() == ["ALPHA", "BETA"])
            #expect(Set(source.documents.map(\.id)).count == 2)
        }
    }

    @Test("the AsyncSequence of snapshots, and the observable live array")
    func sequences() async throws {
        try await withServer { server in
            let db = Firestore.firestore(app: server.app())
            let items = db.collection(unique("items"))
            try await Document(id: "s1", Item(name: "one", rank: 1), in: items).save()
            let source = DocumentList<Item>(items).order(by: "rank")
            var steps = source.snapshots.makeAsyncIterator()
            source.listen()
            #expect(try await steps.next()?.after.map(\.documentID) == ["s1"])
            try await Document(id: "s2", Item(name: "two", rank: 2), in: items).save()
            var step = try await steps.next()
            while let current = step, current.after.count < 2 { step = try await steps.next() }
            #expect(step?.changes.insertions == [1])
            source.stop()
            // The save raised two snapshots before it returned — the local write (server timestamps estimated), then
            // the server's values — so one step may still be buffered; after it the sequence ends.
            var buffered = 0
            while try await steps.next() != nil { buffered += 1 }
            #expect(buffered <= 1, "stop() ends the sequence")

            let live = await LiveDocuments(DocumentList<Item>(items).order(by: "rank", descending: true))
            await live.start()
            let loaded = await eventually { await live.documents.map(\.documentID) == ["s2", "s1"] }
            let failure = await live.error.map { "\($0)" } ?? "no error"
            #expect(loaded, "the live array did not load (\(failure))")
            let observed = Flag()
            await MainActor.run {
                withObservationTracking {
                    _ = live.documents
                } onChange: {
                    observed.raise()
                }
            }
            try await items.document("s2").delete()
            #expect(await eventually { await live.documents.map(\.documentID) == ["s1"] })
            #expect(observed.isRaised, "Observation tells views that read the array")
            #expect(await live.changes.deletions == [0])
            await live.stop()
        }
    }

    @Test("a listener the server refuses ends the sequence with the error and tells onError")
    func failure() async throws {
        // Rules that let anyone write the collection but nobody list it: the listen is refused.
        let rules = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-refuse-\(UUID()).rules")
        try Data(
            """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /{collection}/{id} { allow write, get: if true; }
              }
            }
            """.utf8
        ).write(to: rules)
        defer { try? FileManager.default.removeItem(at: rules) }
        try await withServer(arguments: ["--rules", rules.path]) { server in
            let db = Firestore.firestore(app: server.app())
            let items = db.collection(unique("items"))
            try await Document(id: "f1", Item(name: "one", rank: 1), in: items).save()
            let errors = Mutex<[any Error]>([])
            let source = DocumentList<Item>(items).where("name", isEqualTo: "one").order(by: "rank")
                .onError { error in errors.withLock { $0.append(error) } }
            let steps = source.snapshots
            source.listen()
            await #expect(throws: FirestoreErrorCode.self) {
                for try await _ in steps {}
            }
            #expect(!source.isListening)
            #expect(errors.withLock { $0.count } == 1)
            await #expect(throws: FirestoreErrorCode.self) { try await source.get() }
        }
    }
}
