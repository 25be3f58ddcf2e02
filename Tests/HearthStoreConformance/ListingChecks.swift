import HearthCore
import HearthStore
import Testing

private let database = DatabaseName(project: "test")

extension DocumentStoreConformance {
    static let listingChecks: [DocumentConformanceCheck] = [
        ConformanceCheck("pages cover the collection in ID order without gaps or duplicates") { store in
            let ids = (0..<37).map { index in "d" + String(repeating: "0", count: index < 10 ? 2 : 1) + "\(index)" }
            try await store.commitOrThrow(
                ids.shuffled().map { set("c/\($0)", ["i": .string($0)]) } + [
                    set("c/d000/sub/x", [:]), set("other/y", [:]), set("c-/z", [:]),
                ])
            for pageSize in [1, 5, 36, 37, 100] {
                var seen: [String] = []
                var token: String?
                repeat {
                    let page = try store.listDocuments(
                        ListDocumentsRequest(
                            collection: path("c"), database: database, pageSize: pageSize, pageToken: token))
                    #expect(page.documents.count <= pageSize)
                    seen += page.documents.map(\.path.lastSegment)
                    token = page.nextPageToken
                } while token != nil
                #expect(seen == ids, "pageSize \(pageSize)")
            }
            let page = try store.listDocuments(
                ListDocumentsRequest(collection: path("c"), database: database, pageSize: 1))
            guard case .found(let first)? = page.documents.first else {
                Issue.record("the first page holds no document: \(page.documents)")
                return
            }
            #expect(try first.fields() == ["i": .string("d000")])
        },
        ConformanceCheck("a malformed page token, or one of another collection, is refused") { store in
            try await store.commitOrThrow([set("c/a", [:]), set("c/b", [:]), set("d/a", [:]), set("d/b", [:])])
            let page = try store.listDocuments(
                ListDocumentsRequest(collection: path("c"), database: database, pageSize: 1))
            let token = try #require(page.nextPageToken)
            let otherCollection = #expect(throws: HearthError.self) {
                try store.listDocuments(
                    ListDocumentsRequest(collection: path("d"), database: database, pageSize: 1, pageToken: token))
            }
            #expect(otherCollection?.code == .invalidArgument)
            let garbage = #expect(throws: HearthError.self) {
                try store.listDocuments(
                    ListDocumentsRequest(collection: path("c"), database: database, pageSize: 1, pageToken: "garbage"))
            }
            #expect(garbage?.code == .invalidArgument)
        },
        ConformanceCheck("showMissing lists absent parents in ID order whatever their IDs share as prefixes") {
            store in
            // IDs from an alphabet with bytes below "/" ("-", ".", " "), so some are prefixes of others followed by
            // a byte that sorts "b-/x" before "b/x": the order of collection paths is not the order of IDs.
            let alphabet = ["a", "-", ".", " ", "b"]
            var ids: [String] = []
            for first in ["a", "b"] {
                ids.append(first)
                for second in alphabet {
                    ids.append(first + second)
                    for third in ["a", "-"] { ids.append(first + second + third) }
                }
            }
            // Each ID exists, has documents below it, both, or neither, in a pattern that varies along the list.
            var writes: [Write] = []
            var existing: Set<String> = []
            var nested: Set<String> = []
            for (index, id) in ids.enumerated() {
                let kind = (index * 7 + index / 5) % 4
                if kind == 0 || kind == 2 { existing.insert(id) }
                if kind == 1 || kind == 2 { nested.insert(id) }
            }
            for id in existing { writes.append(set("c/\(id)", ["id": .string(id)])) }
            for id in nested { writes.append(set("c/\(id)/sub/\(id.count % 2 == 0 ? "x" : "y/deeper/z")", [:])) }
            // "m" is missing and sorts first, but four IDs it prefixes sort before "m/…" among the collection paths.
            for id in ["m", "m-1", "m-2", "m.3", "m 4"] {
                nested.insert(id)
                writes.append(set("c/\(id)/sub/x", [:]))
            }
            writes += [set("c-/x/sub/y", [:]), set("c0/x/sub/y", [:]), set("b/c/sub/x", [:])]  // beside c, not below
            try await store.commitOrThrow(writes)

            let expected = existing.union(nested).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            for pageSize in [1, 2, 3, 7, 100] {
                var listed: [ListedDocument] = []
                var token: String?
                repeat {
                    let page = try store.listDocuments(
                        ListDocumentsRequest(
                            collection: path("c"), database: database, pageSize: pageSize, pageToken: token,
                            showMissing: true))
                    #expect(page.documents.count <= pageSize)
                    listed += page.documents
                    token = page.nextPageToken
                } while token != nil
                #expect(listed.map(\.path.lastSegment) == expected, "pageSize \(pageSize)")
                for entry in listed {
                    switch entry {
                    case .found(let document): #expect(existing.contains(document.path.lastSegment))
                    case .missing(let path):
                        #expect(!existing.contains(path.lastSegment) && nested.contains(path.lastSegment))
                    }
                }
            }
            let plain = try store.listDocuments(
                ListDocumentsRequest(collection: path("c"), database: database, pageSize: 1000))
            #expect(plain.documents.map(\.path.lastSegment) == expected.filter(existing.contains))
        },
        ConformanceCheck("showMissing with orderBy is refused") { store in
            try await store.commitOrThrow([set("c/a", ["f": .integer(1)])])
            let error = #expect(throws: HearthError.self) {
                try store.listDocuments(
                    ListDocumentsRequest(
                        collection: path("c"), database: database, pageSize: 1,
                        orderBy: [QueryOrder(field: FieldPath(segments: ["f"]))], showMissing: true))
            }
            #expect(error?.code == .invalidArgument)
        },
        ConformanceCheck("collection IDs are distinct, sorted and pageable") { store in
            try await store.commitOrThrow([
                set("posts/1", [:]), set("posts/1/comments/a", [:]), set("posts-old/1", [:]),
                set("users/u/todos/t", [:]), set("users/u/drafts/d", [:]), set("users/u/drafts/d/x/y", [:]),
                set("users/v/likes/l", [:]), set("a/b", [:]),
            ])
            #expect(
                try store.collectionIDs(under: .root, after: nil, limit: 100) == ["a", "posts", "posts-old", "users"])
            #expect(try store.collectionIDs(under: path("users/u"), after: nil, limit: 100) == ["drafts", "todos"])
            #expect(try store.collectionIDs(under: path("users/u/drafts/d"), after: nil, limit: 100) == ["x"])
            #expect(try store.collectionIDs(under: path("posts/1"), after: nil, limit: 100) == ["comments"])
            #expect(try store.collectionIDs(under: .root, after: "posts", limit: 1) == ["posts-old"])
            #expect(try store.collectionIDs(under: .root, after: "posts-old", limit: 5) == ["users"])
            #expect(try store.collectionIDs(under: path("nobody/here"), after: nil, limit: 5).isEmpty)
        },
    ]
}
