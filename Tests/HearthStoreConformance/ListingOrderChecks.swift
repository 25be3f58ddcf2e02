import HearthCore
import HearthStore
import Testing

private let database = DatabaseName(project: "test")

extension DocumentStoreConformance {
    /// Listings in other orders than by name (`orderBy`), which run through the query engine with a query's
    /// semantics: value order across types, documents without the field left out, page tokens bound to the order.
    static let listingOrderChecks: [DocumentConformanceCheck] = [
        ConformanceCheck("pages by descending name cover the collection without gaps or duplicates") { store in
            let ids = (0..<37).map { index in "d" + String(repeating: "0", count: index < 10 ? 2 : 1) + "\(index)" }
            try await store.commitOrThrow(
                ids.shuffled().map { set("c/\($0)", ["i": .string($0)]) } + [
                    set("c/d000/sub/x", [:]), set("other/y", [:]),
                ])
            var seen: [String] = []
            var token: String?
            repeat {
                let page = try store.listDocuments(
                    ListDocumentsRequest(
                        collection: path("c"), database: database, pageSize: 5, pageToken: token,
                        orderBy: [QueryOrder(field: .documentName, descending: true)]))
                #expect(page.documents.count <= 5)
                seen += page.documents.map(\.path.lastSegment)
                token = page.nextPageToken
            } while token != nil
            #expect(seen == ids.reversed())
        },
        ConformanceCheck("ordering a listing by a field uses value order and skips documents without it") { store in
            try await store.commitOrThrow([
                set("c/a", ["f": .integer(3)]), set("c/b", ["f": .double(1.5)]), set("c/c", ["f": .string("z")]),
                set("c/d", ["g": .integer(0)]), set("c/e", ["f": .null]), set("c/f", ["f": .integer(3)]),
            ])
            var seen: [String] = []
            var token: String?
            repeat {
                let page = try store.listDocuments(
                    ListDocumentsRequest(
                        collection: path("c"), database: database, pageSize: 2, pageToken: token,
                        orderBy: [QueryOrder(field: field("f"))]))
                seen += page.documents.map(\.path.lastSegment)
                token = page.nextPageToken
            } while token != nil
            #expect(seen == ["e", "b", "a", "f", "c"])
            let descending = try store.listDocuments(
                ListDocumentsRequest(
                    collection: path("c"), database: database, pageSize: 10,
                    orderBy: [QueryOrder(field: field("f"), descending: true)]))
            #expect(descending.documents.map(\.path.lastSegment) == ["c", "f", "a", "b", "e"])
        },
        ConformanceCheck("a listing by several fields needs their composite index, as a query does") { store in
            try await DocumentStoreConformance.waitForIndexes(store)
            try await store.commitOrThrow([
                set("cities/a", ["state": .string("CA"), "pop": .integer(1)]),
                set("cities/b", ["state": .string("CA"), "pop": .integer(5)]),
                set("cities/c", ["state": .string("AZ"), "pop": .integer(3)]),
            ])
            let indexed = try store.listDocuments(
                ListDocumentsRequest(
                    collection: path("cities"), database: database, pageSize: 10,
                    orderBy: [QueryOrder(field: field("state")), QueryOrder(field: field("pop"), descending: true)]))
            #expect(indexed.documents.map(\.path.lastSegment) == ["c", "b", "a"])
            let error = #expect(throws: HearthError.self) {
                try store.listDocuments(
                    ListDocumentsRequest(
                        collection: path("cities"), database: database, pageSize: 10,
                        orderBy: [QueryOrder(field: field("pop")), QueryOrder(field: field("state"))]))
            }
            #expect(error?.code == .failedPrecondition)
        },
        ConformanceCheck("a page token from another ordering is rejected") { store in
            try await store.commitOrThrow([set("c/a", ["f": .integer(1)]), set("c/b", ["f": .integer(2)])])
            let page = try store.listDocuments(
                ListDocumentsRequest(collection: path("c"), database: database, pageSize: 1))
            let token = try #require(page.nextPageToken)
            let error = #expect(throws: HearthError.self) {
                try store.listDocuments(
                    ListDocumentsRequest(
                        collection: path("c"), database: database, pageSize: 1, pageToken: token,
                        orderBy: [QueryOrder(field: field("f"))]))
            }
            #expect(error?.code == .invalidArgument)
        },
    ]
}
