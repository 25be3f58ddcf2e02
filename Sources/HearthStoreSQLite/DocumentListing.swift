import Foundation
import HearthCore
import HearthStore
import HearthSQLite

/// Listing a collection (by ID, or by one field through its index entries) and listing collection IDs.
enum DocumentListing {
    static func page(_ request: ListDocumentsRequest, in db: SQLiteConnection) throws -> ListDocumentsPage {
        let collection = request.collection.description
        let limit = request.pageSize + 1  // one extra row tells whether another page exists
        let direction = request.descending ? "DESC" : "ASC"
        let comparison = request.descending ? "<" : ">"
        var ids: [(id: String, key: [UInt8])] = []
        if let field = request.orderBy {
            let fieldName = field.description
            let cursor = try request.pageToken.map { try PageToken.decodeField($0, field: fieldName) }
            let rows: [SQLiteRow]
            if let cursor {
                rows = try db.fetchAll(
                    """
                    SELECT id, key FROM index_entries
                    WHERE collection = \(collection) AND field = \(fieldName) AND kind = 0
                      AND (key, id) \(unsafeSQL: comparison) (\(cursor.key), \(cursor.id))
                    ORDER BY key \(unsafeSQL: direction), id \(unsafeSQL: direction) LIMIT \(limit)
                    """)
            } else {
                rows = try db.fetchAll(
                    """
                    SELECT id, key FROM index_entries
                    WHERE collection = \(collection) AND field = \(fieldName) AND kind = 0
                    ORDER BY key \(unsafeSQL: direction), id \(unsafeSQL: direction) LIMIT \(limit)
                    """)
            }
            ids = rows.map { row in
                guard case .blob(let key) = row[1] else { return (row[0].text, []) }
                return (row[0].text, key)
            }
        } else {
            let cursor = try request.pageToken.map(PageToken.decodeName)
            let rows: [SQLiteRow]
            if let cursor {
                rows = try db.fetchAll(
                    """
                    SELECT id FROM documents WHERE collection = \(collection) AND id \(unsafeSQL: comparison) \(cursor)
                    ORDER BY id \(unsafeSQL: direction) LIMIT \(limit)
                    """)
            } else {
                rows = try db.fetchAll(
                    """
                    SELECT id FROM documents WHERE collection = \(collection)
                    ORDER BY id \(unsafeSQL: direction) LIMIT \(limit)
                    """)
            }
            ids = rows.map { ($0[0].text, []) }
        }
        let hasMore = ids.count > request.pageSize
        if hasMore { ids.removeLast() }
        let documents = try ids.compactMap { entry in
            try DocumentRows.fetch(request.collection.appending(entry.id), in: db)
        }
        var token: String?
        if hasMore, let last = ids.last {
            token = request.orderBy.map { PageToken.encodeField(key: last.key, id: last.id, field: $0.description) }
                ?? PageToken.encodeName(last.id)
        }
        return ListDocumentsPage(documents: documents, nextPageToken: token)
    }

    /// Distinct first segments of the collection paths below `parent`, skipping each ID's nested collections in
    /// one jump, so the cost follows the number of collection IDs, not of documents. Paths sort byte-wise, so
    /// `posts-old` comes between `posts` and `posts/1/comments`: the IDs are collected, then sorted.
    static func collectionIDs(under parent: ResourcePath, after: String?, limit: Int, in db: SQLiteConnection) throws -> [String] {
        let prefix = parent.segments.isEmpty ? "" : parent.description + "/"
        let upper = parent.segments.isEmpty ? "\u{10FFFF}" : parent.description + "0"  // "0" follows "/"
        var ids = Set<String>()
        var position = prefix
        var inclusive = true
        while true {
            let row =
                inclusive
                ? try db.fetchOne(
                    "SELECT collection FROM documents WHERE collection >= \(position) AND collection < \(upper) ORDER BY collection LIMIT 1")
                : try db.fetchOne(
                    "SELECT collection FROM documents WHERE collection > \(position) AND collection < \(upper) ORDER BY collection LIMIT 1")
            guard let collection = row?[0].stringValue, collection.hasPrefix(prefix) else { break }
            let id = String(collection.dropFirst(prefix.count).prefix { $0 != "/" })
            ids.insert(id)
            if collection.hasPrefix(prefix + id + "/") {
                (position, inclusive) = (prefix + id + "0", true)
            } else {
                (position, inclusive) = (collection, false)
            }
        }
        let sorted = ids.sorted { Value.compareBytes($0.utf8, $1.utf8) < 0 }
        let remaining = after.map { after in sorted.filter { Value.compareBytes($0.utf8, after.utf8) > 0 } } ?? sorted
        return Array(remaining.prefix(limit))
    }
}

/// Opaque page tokens: where a listing stopped, bound to the ordering that produced them.
enum PageToken {
    static func encodeName(_ id: String) -> String {
        "n." + Base64URL.encode(Array(id.utf8))
    }

    static func encodeField(key: [UInt8], id: String, field: String) -> String {
        "f." + Base64URL.encode(Array(field.utf8)) + "." + Base64URL.encode(key) + "." + Base64URL.encode(Array(id.utf8))
    }

    static func decodeName(_ token: String) throws(HearthError) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == "n", let id = Base64URL.decode(parts[1]), !id.isEmpty else { throw invalid }
        return String(decoding: id, as: UTF8.self)
    }

    static func decodeField(_ token: String, field: String) throws(HearthError) -> (key: [UInt8], id: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "f", let tokenField = Base64URL.decode(parts[1]),
            String(decoding: tokenField, as: UTF8.self) == field, let key = Base64URL.decode(parts[2]), let id = Base64URL.decode(parts[3])
        else { throw invalid }
        return (key, String(decoding: id, as: UTF8.self))
    }

    private static let invalid = HearthError.invalidArgument(
        "Invalid pageToken: pass the nextPageToken of the previous page unchanged, with the same orderBy.")
}
