package import HearthCore

/// Listing a collection (`documents.list`) and listing collection IDs, for every engine: each answers the scans
/// (``DocumentScanner``, and ``IndexScanner`` for listings in another order) with its own SQL.
package enum DocumentListing {
    /// One page of a collection. In name order (no `orderBy`) the IDs come from the primary key, merged with the
    /// nested IDs for `showMissing`; other orders run through the query engine, with a query's semantics, plans and
    /// index requirements. Either way the page token is a cursor after the page's last document.
    package static func page(
        _ request: ListDocumentsRequest, catalog: IndexCatalog, in db: any IndexScanner, budget: Int = .max
    ) throws -> ListDocumentsPage {
        if request.orderBy.isEmpty || request.showMissing { return try pageByName(request, in: db, budget: budget) }
        var query = StructuredQuery(
            parent: request.collection.parent, collectionID: request.collection.lastSegment, orderBy: request.orderBy
        ).normalized()
        if let token = request.pageToken {
            let cursor = try ListPageToken.decode(
                token, orders: query.orderBy, collection: request.collection, database: request.database)
            query.startAt = QueryCursor(values: cursor.values, before: false)
        }
        query.limit = request.pageSize + 1  // one extra document tells whether another page exists
        // A page whose documents pass the byte bound ends early, with a token for the rest, as a page may.
        let results = try QueryRunner.run(query, catalog: catalog, in: db, budget: budget, truncates: true)
        var documents = results.documents
        var token: String?
        if documents.count > request.pageSize || (results.truncated && !documents.isEmpty) {
            if documents.count > request.pageSize { documents.removeLast() }
            if let last = documents.last {
                let fields = try last.fields()
                let values = query.orderBy.map { order in
                    order.field == .documentName
                        ? .reference(request.database.name(of: last.path)) : fields.value(at: order.field) ?? .null
                }
                token = ListPageToken.encode(values: values, orders: query.orderBy)
            }
        }
        return ListDocumentsPage(documents: documents.map(ListedDocument.found), nextPageToken: token)
    }

    /// One page in name order, with `showMissing` the missing documents (absent, with documents nested below them)
    /// among the others: the first IDs of both kinds after the cursor, merged. Needs no fields decoded, and of the
    /// engine only its documents table. Refuses `orderBy` with `showMissing` (and is only for requests without
    /// `orderBy` otherwise).
    package static func pageByName(
        _ request: ListDocumentsRequest, in db: any DocumentScanner, budget: Int = .max
    ) throws -> ListDocumentsPage {
        guard request.orderBy.isEmpty else {
            throw HearthError.invalidArgument(
                "showMissing cannot be combined with orderBy: missing documents have no fields to order by; list them in name order without orderBy."
            )
        }
        let orders = [QueryOrder(field: .documentName)]
        let collection = request.collection
        let after = try request.pageToken.map { token throws(HearthError) in
            try ListPageToken.decode(token, orders: orders, collection: collection, database: request.database).path
                .lastSegment
        }
        let limit = request.pageSize + 1
        // In byte order, as the primary key keeps them.
        var ids = try db.documentIDs(
            in: collection, bounds: ClosedIDRange(), after: after, descending: false, limit: limit)
        if request.showMissing {
            ids = merged(ids, try NestedDocumentIDs.first(limit, in: collection, after: after, scanner: db))
        }
        var page = ids.prefix(limit)
        var hasMore = page.count > request.pageSize
        if hasMore { page.removeLast() }
        var documents: [ListedDocument] = []
        var spent = ResultBudget(limit: budget)
        for (index, id) in zip(page.indices, page) {
            let path = collection.appending(id)
            guard let document = try db.document(at: path) else {
                documents.append(.missing(path))
                continue
            }
            // Past the byte bound the page ends early (never empty), with a token for the rest.
            guard spent.admits(document) || documents.isEmpty else {
                page = page[..<index]
                hasMore = true
                break
            }
            documents.append(.found(document))
        }
        let token =
            hasMore
            ? page.last.map {
                ListPageToken.encode(
                    values: [.reference(request.database.name(of: collection.appending($0)))], orders: orders)
            } : nil
        return ListDocumentsPage(documents: documents, nextPageToken: token)
    }

    /// Two lists of IDs in byte order as one, without duplicates.
    private static func merged(_ a: [String], _ b: [String]) -> [String] {
        var out: [String] = []
        out.reserveCapacity(a.count + b.count)
        var (i, j) = (0, 0)
        while i < a.count, j < b.count {
            let order = Value.compareBytes(a[i].utf8, b[j].utf8)
            if order <= 0 {
                out.append(a[i])
                i += 1
                if order == 0 { j += 1 }
            } else {
                out.append(b[j])
                j += 1
            }
        }
        return out + a[i...] + b[j...]
    }

    /// The IDs of the collections below `parent`: the first segments of the collection paths below it. They come
    /// in path order (`posts-old` between `posts` and `posts/1/comments`), so they are collected, then sorted.
    package static func collectionIDs(
        under parent: ResourcePath, after: String?, limit: Int, in db: any DocumentScanner
    ) throws -> [String] {
        let prefix = parent.segments.isEmpty ? "" : parent.description + "/"
        let upper = parent.segments.isEmpty ? "\u{10FFFF}" : parent.description + "0"  // "0" follows "/"
        var ids = Set<String>()
        try CollectionPathWalk.firstSegments(prefix: prefix, upper: upper, from: prefix, inclusive: true, in: db) {
            id in
            ids.insert(id)
            return true
        }
        let sorted = ids.sorted { Value.compareBytes($0.utf8, $1.utf8) < 0 }
        let remaining = after.map { after in sorted.filter { Value.compareBytes($0.utf8, after.utf8) > 0 } } ?? sorted
        return Array(remaining.prefix(limit))
    }
}
