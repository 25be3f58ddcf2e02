import Foundation
import Hearth
import HearthModels
import HearthTestSupport
import Observation
import Synchronization
import Testing

/// A Ballcap-shaped object for these tests.
final class Note: Object, DataRepresentable, DataListenable {
    struct Model: Modelable, Codable {
        var text: String = ""
        var seenAt: HearthModels.ServerTimestamp = .pending
    }

    var data: Model?
    var listener: (any ListenerRegistration)?
}

/// Waits for `condition` on the main actor, checking between turns of the main queue, for up to 20 seconds.
@MainActor
private func wait(for condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(20)
    while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    return condition()
}

@Suite("Ballcap-shaped objects and data sources against a real server")
@MainActor
struct ObjectTests {
    @Test("completions run on the main actor after the call returned; an object without data writes nothing")
    func completionsAndEncodingFailures() async throws {
        try await withServer { server in
            let notes = Firestore.firestore(app: server.app()).collection(unique("notes"))
            // Marks the main queue, so a completion can tell whether it runs there.
            let mainQueue = DispatchSpecificKey<Bool>()
            DispatchQueue.main.setSpecific(key: mainQueue, value: true)
            defer { DispatchQueue.main.setSpecific(key: mainQueue, value: nil) }
            let note = Note(collectionReference: notes)
            note[\.text] = "hello"
            var returned = false
            let outcome: String = await withCheckedContinuation { continuation in
                note.save { error in
                    continuation.resume(
                        returning:
                            "returned: \(returned), main: \(DispatchQueue.getSpecific(key: mainQueue) == true), error: \(error.map { "\($0)" } ?? "none")"
                    )
                }
                returned = true
            }
            #expect(outcome == "returned: true, main: true, error: none")

            let empty = Note(notes.document("empty"))
            let failure: String = await withCheckedContinuation { continuation in
                empty.save { error in
                    continuation.resume(returning: (error as? WriteEncodingError)?.description ?? "none")
                }
            }
            #expect(failure == "The write to \(notes.path)/empty could not be encoded: the object has no data")
            let stored = try await notes.document("empty").getDocument(source: .server)
            #expect(!stored.exists)
        }
    }

    @Test("async save, update and get; a saved object keeps its createdAt; ServerTimestamp resolves on the server")
    func asyncWritesAndTimes() async throws {
        try await withServer { server in
            let notes = Firestore.firestore(app: server.app()).collection(unique("notes"))
            let note = Note(id: "n1", collectionReference: notes)
            note[\.text] = "first"
            try await note.save()
            let read = try #require(try await Note.get(documentReference: note.documentReference, source: .server))
            #expect(read[\.text] == "first")
            guard case .resolved = read[\.seenAt] else {
                Issue.record("a pending ServerTimestamp is stored as the server's time")
                return
            }
            let created = read.createdAt
            read[\.text] = "second"
            try await read.save()
            let again = try #require(try await Note.get(documentReference: note.documentReference, source: .server))
            #expect(again[\.text] == "second")
            #expect(again.createdAt == created, "saving an object read back keeps its createdAt")
            #expect(again.updatedAt > created)

            again[\.text] = "third"
            try await again.update()
            #expect(try await Note.get(documentReference: note.documentReference, source: .server)?[\.text] == "third")
            try await again.delete()
            #expect(try await Note.get(documentReference: note.documentReference, source: .server) == nil)
            await #expect(throws: FirestoreErrorCode.self) { try await again.update() }
        }
    }

    @Test("listen() keeps an object current with another client's writes until stopListening()")
    func listeningObject() async throws {
        try await withServer { server in
            let notes = Firestore.firestore(app: server.app()).collection(unique("notes"))
            let other = Firestore.firestore(app: server.app("other")).collection(notes.path)
            let note = Note(id: "shared", collectionReference: notes)
            note[\.text] = "mine"
            try await note.save()
            let follower = Note(notes.document("shared")).listen()
            #expect(try await wait { follower.data?.text == "mine" })
            try await other.document("shared").updateData(["text": "theirs"])
            #expect(try await wait { follower[\.text] == "theirs" })
            follower.stopListening()
            #expect(follower.listener == nil)
        }
    }

    @Test("a data source leaves out what retrieve declines, and sorted(by:) orders the list")
    func dataSourceRetrieveAndSort() async throws {
        try await withServer { server in
            let notes = Firestore.firestore(app: server.app()).collection(unique("notes"))
            for text in ["b", "hidden", "a", "c"] {
                let note = Note(collectionReference: notes)
                note[\.text] = text
                try await note.save()
            }
            var steps = 0
            let source = DataSource<Note>.Query(notes).dataSource()
                .retrieve(from: { (_, snapshot, done) in
                    let note = try? Note(snapshot: snapshot)
                    done(note?[\.text] == "hidden" ? nil : note)
                })
                .sorted(by: { $0[\.text] > $1[\.text] })
                .onChanged({ (_, _) in steps += 1 })
                .listen()
            #expect(try await wait { source.map { $0[\.text] } == ["c", "b", "a"] })
            #expect(steps >= 1)
            source.stop()
        }
    }

    @Test("FieldValue encodes only through Firestore.Encoder")
    func fieldValueOutsideFirestore() throws {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode([HearthModels.ServerTimestamp.pending]) }
        let fields = try Firestore.Encoder().encode(Note.Model(text: "x", seenAt: .pending))
        #expect(fields["seenAt"] is FieldValue)
    }
}

@Suite("Ballcap's CachePolicy on an object's get")
@MainActor
struct ObjectCachePolicyTests {
    /// Every completion of one `get(_:)` call, until `count` arrived: the text read, "not found", or "error".
    private func texts(_ note: Note, _ policy: CachePolicy, count: Int = 1) async -> [String] {
        await withCheckedContinuation { continuation in
            var seen: [String] = []
            note.get(policy) { object, error in
                seen.append(object?.data?.text ?? (error == nil ? "not found" : "error"))
                if seen.count == count { continuation.resume(returning: seen) }
            }
        }
    }

    @Test("cacheOnly, cacheElseServer, serverOnly and cacheThenServer read where Ballcap's do")
    func policies() async throws {
        try await withServer { server in
            let writer = Firestore.firestore(app: server.app()).collection(unique("notes"))
            let reader = Firestore.firestore(app: server.app("reader")).collection(writer.path)
            try await writer.document("n").setData(["text": "stored", "seenAt": FieldValue.serverTimestamp()])
            let note = Note(reader.document("n"))

            let got1 = await texts(note, .cacheOnly)
            #expect(got1 == ["error"], "\(got1) nothing is cached before the first read")
            let got2 = await texts(note, .cacheElseServer)
            #expect(got2 == ["stored"], "\(got2) a cache miss goes to the server")
            try await writer.document("n").updateData(["text": "changed"])
            let got3 = await texts(note, .cacheOnly)
            #expect(got3 == ["stored"], "\(got3) ")
            let got4 = await texts(note, .cacheElseServer)
            #expect(got4 == ["stored"], "\(got4) a cached copy is used however old")
            let got5 = await texts(note, .serverOnly)
            #expect(got5 == ["changed"], "\(got5) ")
            #expect(note[\.text] == "changed", "the read goes into the object")
            try await writer.document("n").updateData(["text": "third"])
            let got6 = await texts(note, .cacheThenServer, count: 2)
            #expect(got6 == ["changed", "third"], "\(got6) ")
            let got7 = await texts(note, .serverElseCache)
            #expect(got7 == ["third"], "\(got7) ")
        }
    }
}

@Suite("Objects and data sources under Observation (withObservationTracking, as SwiftUI tracks them)")
@MainActor
struct ObjectObservationTests {
    @Test("a field read through the subscript is tracked: a write through it and another client's change notify")
    func objectFieldsAreTracked() async throws {
        try await withServer { server in
            let notes = Firestore.firestore(app: server.app()).collection(unique("notes"))
            let other = Firestore.firestore(app: server.app("other")).collection(notes.path)
            let note = Note(id: "tracked", collectionReference: notes)
            let local = Mutex(0)
            withObservationTracking {
                _ = note[\.text]
            } onChange: {
                local.withLock { $0 += 1 }
            }
            note[\.text] = "mine"
            #expect(local.withLock { $0 } == 1)
            try await note.save()

            let follower = Note(notes.document("tracked")).listen()
            #expect(try await wait { follower[\.text] == "mine" })
            let remote = Mutex(0)
            withObservationTracking {
                _ = follower[\.text]
            } onChange: {
                remote.withLock { $0 += 1 }
            }
            try await other.document("tracked").updateData(["text": "theirs"])
            #expect(try await wait { remote.withLock { $0 } == 1 })
            #expect(follower[\.text] == "theirs")
            follower.stopListening()
        }
    }

    @Test("a live data source's list is tracked: a document added elsewhere notifies")
    func dataSourceListIsTracked() async throws {
        try await withServer { server in
            let notes = Firestore.firestore(app: server.app()).collection(unique("notes"))
            let other = Firestore.firestore(app: server.app("other")).collection(notes.path)
            let source = DataSource<Note>.Query(notes).dataSource().listen()
            #expect(try await wait { source.isEmpty })
            let fired = Mutex(0)
            withObservationTracking {
                _ = source.count
            } onChange: {
                fired.withLock { $0 += 1 }
            }
            try await other.document("new").setData(["text": "hi", "seenAt": FieldValue.serverTimestamp()])
            #expect(try await wait { fired.withLock { $0 } == 1 })
            #expect(try await wait { source.map { $0[\.text] } == ["hi"] })
            source.stop()
        }
    }
}
