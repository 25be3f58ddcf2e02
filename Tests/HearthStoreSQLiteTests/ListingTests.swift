import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite
import Testing

@Suite struct ListingTests {
    @Test func pagesCoverTheCollectionInIDOrderWithoutGapsOrDuplicates() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        let ids = (0..<37).map { String(format: "d%03d", $0) }.shuffled()
        try await store.commitOrThrow(ids.map { set("c/\($0)", ["i": .string($0)]) } + [set("c/d000/sub/x", [:]), set("other/y", [:])])
        for descending in [false, true] {
            var seen: [String] = []
            var token: String?
            repeat {
                let page = try store.listDocuments(
                    ListDocumentsRequest(collection: path("c"), pageSize: 5, pageToken: token, descending: descending))
                seen += page.documents.map(\.path.lastSegment)
                token = page.nextPageToken
            } while token != nil
            #expect(seen == (descending ? ids.sorted().reversed() : ids.sorted()))
        }
    }

    @Test func orderingByAFieldUsesValueOrderAndSkipsDocumentsWithoutIt() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try await store.commitOrThrow([
            set("c/a", ["f": .integer(3)]), set("c/b", ["f": .double(1.5)]), set("c/c", ["f": .string("z")]),
            set("c/d", ["g": .integer(0)]), set("c/e", ["f": .null]), set("c/f", ["f": .integer(3)]),
        ])
        var seen: [String] = []
        var token: String?
        repeat {
            let page = try store.listDocuments(
                ListDocumentsRequest(collection: path("c"), pageSize: 2, pageToken: token, orderBy: FieldPath(segments: ["f"])))
            seen += page.documents.map(\.path.lastSegment)
            token = page.nextPageToken
        } while token != nil
        #expect(seen == ["e", "b", "a", "f", "c"])
        let descending = try store.listDocuments(
            ListDocumentsRequest(collection: path("c"), pageSize: 10, orderBy: FieldPath(segments: ["f"]), descending: true))
        #expect(descending.documents.map(\.path.lastSegment) == ["c", "f", "a", "b", "e"])
    }

    @Test func aTokenFromAnotherOrderingIsRejected() async throws {
        let temporary = try TemporaryStore()
        try await temporary.store.commitOrThrow([set("c/a", ["f": .integer(1)]), set("c/b", ["f": .integer(2)])])
        let page = try temporary.store.listDocuments(ListDocumentsRequest(collection: path("c"), pageSize: 1))
        let token = try #require(page.nextPageToken)
        #expect(throws: HearthError.self) {
            try temporary.store.listDocuments(
                ListDocumentsRequest(collection: path("c"), pageSize: 1, pageToken: token, orderBy: FieldPath(segments: ["f"])))
        }
        #expect(throws: HearthError.self) {
            try temporary.store.listDocuments(ListDocumentsRequest(collection: path("c"), pageSize: 1, pageToken: "garbage"))
        }
    }

    @Test func collectionIDsAreDistinctSortedAndPageable() async throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try await store.commitOrThrow([
            set("posts/1", [:]), set("posts/1/comments/a", [:]), set("posts-old/1", [:]), set("users/u/todos/t", [:]),
            set("users/u/drafts/d", [:]), set("users/u/drafts/d/x/y", [:]), set("users/v/likes/l", [:]), set("a/b", [:]),
        ])
        #expect(try store.collectionIDs(under: .root, after: nil, limit: 100) == ["a", "posts", "posts-old", "users"])
        #expect(try store.collectionIDs(under: path("users/u"), after: nil, limit: 100) == ["drafts", "todos"])
        #expect(try store.collectionIDs(under: path("users/u/drafts/d"), after: nil, limit: 100) == ["x"])
        #expect(try store.collectionIDs(under: path("posts/1"), after: nil, limit: 100) == ["comments"])
        #expect(try store.collectionIDs(under: .root, after: "posts", limit: 1) == ["posts-old"])
        #expect(try store.collectionIDs(under: .root, after: "posts-old", limit: 5) == ["users"])
        #expect(try store.collectionIDs(under: path("nobody/here"), after: nil, limit: 5).isEmpty)
    }
}
