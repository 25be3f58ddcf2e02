import HearthCore
import HearthStore
import Testing

extension DocumentStoreConformance {
    /// Ordering, the four cursors, offset, limit and limit-to-last.
    static let queryOrderChecks: [DocumentConformanceCheck] = [
        ConformanceCheck("order by a field leaves out documents without it, ascending and descending") { store in
            try await seedCities(store)
            let byPop = [QueryOrder(field: field("pop"))]
            #expect(try ids(store, cities(orderBy: byPop)) == ["sf", "aus", "chi", "la", "ny"])
            let descending = [QueryOrder(field: field("pop"), descending: true)]
            #expect(try ids(store, cities(orderBy: descending)) == ["ny", "la", "chi", "aus", "sf"])
            let byName = [QueryOrder(field: .documentName, descending: true)]
            #expect(try ids(store, cities(orderBy: byName)) == ["sf", "ny", "la", "ghost", "chi", "aus"])
        },
        ConformanceCheck("startAt, startAfter, endAt and endBefore cursors") { store in
            try await seedCities(store)
            let byPop = [QueryOrder(field: field("pop"))]
            let at = QueryCursor(values: [.integer(960_000)], before: true)
            let after = QueryCursor(values: [.integer(960_000)], before: false)
            let endAt = QueryCursor(values: [.integer(2_700_000)], before: false)
            let endBefore = QueryCursor(values: [.integer(2_700_000)], before: true)
            #expect(try ids(store, cities(orderBy: byPop, startAt: at)) == ["aus", "chi", "la", "ny"])
            #expect(try ids(store, cities(orderBy: byPop, startAt: after)) == ["chi", "la", "ny"])
            #expect(try ids(store, cities(orderBy: byPop, endAt: endAt)) == ["sf", "aus", "chi"])
            #expect(try ids(store, cities(orderBy: byPop, endAt: endBefore)) == ["sf", "aus"])
            #expect(try ids(store, cities(orderBy: byPop, startAt: after, endAt: endAt)) == ["chi"])
            // Descending: the cursor value is where the scan starts from the top.
            let down = [QueryOrder(field: field("pop"), descending: true)]
            #expect(try ids(store, cities(orderBy: down, startAt: after)) == ["sf"])
        },
        ConformanceCheck("a cursor naming a document breaks ties by name") { store in
            try await seedCities(store)
            try await store.commitOrThrow([
                set("cities/a1", ["pop": .integer(960_000)]), set("cities/zz", ["pop": .integer(960_000)]),
            ])
            let byPop = [QueryOrder(field: field("pop"))]
            let afterAus = QueryCursor(values: [.integer(960_000), reference("cities/aus")], before: false)
            #expect(try ids(store, cities(orderBy: byPop, startAt: afterAus, limit: 2)) == ["zz", "chi"])
            let beforeAus = QueryCursor(values: [.integer(960_000), reference("cities/aus")], before: true)
            #expect(try ids(store, cities(orderBy: byPop, endAt: beforeAus)) == ["sf", "a1"])
            let byName = [QueryOrder(field: .documentName)]
            let pastLA = QueryCursor(values: [reference("cities/la")], before: false)
            #expect(try ids(store, cities(orderBy: byName, startAt: pastLA)) == ["ny", "sf", "zz"])
        },
        ConformanceCheck("offset and limit, and limit-to-last as clients send it (reversed, then flipped)") { store in
            try await seedCities(store)
            let byPop = [QueryOrder(field: field("pop"))]
            #expect(try ids(store, cities(orderBy: byPop, limit: 2)) == ["sf", "aus"])
            #expect(try ids(store, cities(orderBy: byPop, offset: 1, limit: 2)) == ["aus", "chi"])
            #expect(try ids(store, cities(orderBy: byPop, offset: 10)) == [])
            let reversed = [QueryOrder(field: field("pop"), descending: true)]
            #expect(Array(try ids(store, cities(orderBy: reversed, limit: 2)).reversed()) == ["la", "ny"])
            // Paging with the last document of each page as the next page's cursor visits each once.
            var seen: [String] = []
            var cursor: QueryCursor?
            while true {
                let page = try store.runQuery(cities(orderBy: byPop, startAt: cursor, limit: 2), transaction: nil)
                guard let last = page.documents.last else { break }
                seen += page.documents.map(\.path.lastSegment)
                let pop = try #require(try last.fields()["pop"])
                cursor = QueryCursor(values: [pop, reference(last.path.description)], before: false)
            }
            #expect(seen == ["sf", "aus", "chi", "la", "ny"])
        },
    ]
}
