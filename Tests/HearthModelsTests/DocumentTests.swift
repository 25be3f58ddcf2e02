import Foundation
import Hearth
import HearthModels
import HearthTestSupport
import Testing

/// A model using every property type the typed layer adds.
struct Item: Codable, Sendable, Equatable {
    var name: String
    var rank: Int
    var tags: ArrayField<String> = .value([])
    var likes: Incrementable<Int> = .value(0)
    @Hearth.ServerTimestamp var seenAt: Timestamp?
}

@Suite("Typed documents against a real server")
struct DocumentTests {
    @Test("auto ID, explicit ID and reference; save, get, update, delete; key-path subscripts")
    func lifecycle() async throws {
        try await withServer { server in
            let db = Firestore.firestore(app: server.app())
            let items = db.collection(unique("items"))
            var auto = Document(Item(name: "auto", rank: 1), in: items)
            #expect(auto.documentID.count == 20)
            try await auto.save()
            let explicit = Document(id: "chosen", Item(name: "explicit", rank: 2), in: items)
            try await explicit.save()
            let byReference = Document(Item(name: "ref", rank: 3), reference: items.document("by-ref"))
            try await byReference.save()

            let read = try #require(try await Document<Item>.get(items.document("chosen")))
            #expect(read.data.name == "explicit" && read[\.rank] == 2)
            #expect(read.createdAt != nil && read.updatedAt == read.createdAt, "the first save sets both times")
            #expect(read.data.seenAt != nil, "a nil @ServerTimestamp is filled by the server")
            #expect(read.id == "\(items.path)/chosen")

            auto[\.name] = "renamed"
            #expect(auto.data.name == "renamed")
            try await auto.update()
            let updated = try #require(try await auto.get())
            #expect(updated[\.name] == "renamed")
            let created = try #require(updated.createdAt)
            let changed = try #require(updated.updatedAt)
            #expect(changed > created, "update moves updatedAt and keeps createdAt")

            try await auto.delete()
            #expect(try await auto.get() == nil)
            await #expect(throws: FirestoreErrorCode.self) { try await auto.update() }
            #expect(try await Document<Item>.get(items.document("never")) == nil)
        }
    }

    @Test("increments and array unions/removals reach the server as field transforms, so concurrent writers all count")
    func transforms() async throws {
        try await withServer { server in
            let first = Firestore.firestore(app: server.app("one"))
            let second = Firestore.firestore(app: server.app("two"))
            let path = "\(unique("items"))/shared"
            try await Document(Item(name: "shared", rank: 0, tags: .value(["a"])), reference: first.document(path))
                .save()
            var one = try #require(try await Document<Item>.get(first.document(path)))
            var two = try #require(try await Document<Item>.get(second.document(path)))
            one[\.likes] = .increment(2)
            two[\.likes] = .increment(3)
            one[\.tags] = .union(["b", "c"])
            two[\.tags] = .union(["d"])
            let (left, right) = (one, two)
            async let a: Void = left.update()
            async let b: Void = right.update()
            _ = try await (a, b)
            var stored = try #require(try await one.get())
            #expect(stored[\.likes] == .value(5))
            #expect(Set(stored[\.tags].elements ?? []) == ["a", "b", "c", "d"])
            stored[\.tags] = .remove(["a", "c"])
            stored[\.likes] = .increment(-1)
            try await stored.update()
            let final = try #require(try await two.get())
            #expect(Set(final[\.tags].elements ?? []) == ["b", "d"])
            #expect(final[\.likes].value == 4)
        }
    }

    /// A model whose counter sits in a nested struct.
    struct Page: Codable, Sendable {
        struct Stats: Codable, Sendable { var views: Incrementable<Double> }
        var title: String
        var stats: Stats
    }

    @Test("a counter nested in a map is still a transform, and a save replaces it like any field")
    func nestedCounter() async throws {
        try await withServer { server in
            let db = Firestore.firestore(app: server.app())
            var page = Document(
                id: "p", Page(title: "Home", stats: .init(views: .value(1.5))), in: db.collection(unique("pages")))
            try await page.save()
            page[\.stats.views] = .increment(2)
            try await page.update()
            try await page.update()
            #expect(try await page.get()?[\.stats.views] == .value(5.5), "each update adds: 1.5 + 2 + 2")
            try await page.save()
            #expect(try await page.get()?[\.stats.views] == .value(2), "a replacement counts from zero")
        }
    }

    @Test("a batch writes typed documents atomically")
    func batch() async throws {
        try await withServer { server in
            let db = Firestore.firestore(app: server.app())
            let items = db.collection(unique("items"))
            let keep = Document(id: "keep", Item(name: "keep", rank: 1), in: items)
            let gone = Document(id: "gone", Item(name: "gone", rank: 2), in: items)
            try await Batch(db).save(keep).save(gone).commit()
            var edited = keep
            edited[\.rank] = 10
            let missing = Document(id: "missing", Item(name: "missing", rank: 3), in: items)
            // The update of a missing document fails the commit, so neither other write happens.
            await #expect(throws: FirestoreErrorCode.self) {
                try await Batch(db).update(edited).delete(gone).update(missing).commit()
            }
            #expect(try await keep.get()?[\.rank] == 1)
            #expect(try await gone.get() != nil)
            try await Batch(db).update(edited).delete(gone).commit()
            #expect(try await keep.get()?[\.rank] == 10)
            #expect(try await gone.get() == nil)
        }
    }

    @Test("editing a copy that is cancelled reaches neither the server nor other holders of the document")
    func copies() async throws {
        try await withServer { server in
            let db = Firestore.firestore(app: server.app())
            let items = db.collection(unique("items"))
            try await Document(id: "a", Item(name: "original", rank: 1), in: items).save()
            let list = DocumentList<Item>(items).listen()
            defer { list.stop() }
            #expect(await eventually { list.documents.count == 1 })
            let shown = list.documents[0]
            var draft = shown
            draft[\.name] = "edited but cancelled"
            draft[\.rank] = 99
            // Cancel: the draft is dropped. The list, the value the view showed and the server are unchanged.
            #expect(shown[\.name] == "original")
            #expect(list.documents[0][\.name] == "original")
            #expect(try await shown.get()?[\.name] == "original")
            // Saving a draft is what changes the others.
            var saved = shown
            saved[\.name] = "edited and saved"
            try await saved.update()
            #expect(await eventually { list.documents.first?[\.name] == "edited and saved" })
            #expect(shown[\.name] == "original", "a value already handed out never changes under its holder")
        }
    }

    @Test("listen follows one document, nil while it does not exist")
    func listen() async throws {
        try await withServer { server in
            let db = Firestore.firestore(app: server.app())
            let document = Document(id: "watched", Item(name: "v1", rank: 1), in: db.collection(unique("items")))
            var updates = document.listen().makeAsyncIterator()
            // Skips intermediate states (a local echo before the server's answer) until `expected` shows up.
            func awaitState(_ expected: String?) async throws -> Bool {
                while let update = try await updates.next() {
                    if update?[\.name] == expected { return true }
                }
                return false
            }
            #expect(try await awaitState(nil))
            try await document.save()
            #expect(try await awaitState("v1"))
            var edited = document
            edited[\.name] = "v2"
            try await edited.update()
            #expect(try await awaitState("v2"))
            try await document.delete()
            #expect(try await awaitState(nil))
        }
    }
}
