import HearthCore
internal import HearthPostgres
import HearthStore

/// The `index_entries` and `composite_entries` tables: each document's automatic single-field entries
/// (`IndexEntry.entries(for:)`) and its composite entries (`IndexDefinition.keys(for:)`), the same engine-neutral
/// entries SQLite's engine keeps, written in the transaction of the commit that changes the document.
enum PostgresIndexRows {
    /// Rows per multi-row statement: well under PostgreSQL's 65,535 parameters, and any document's entries in one
    /// or a few round trips.
    private static let rowsPerStatement = 1_000

    /// The most bytes of an index key stored: longer ones are cut (``IndexKeyCap``), as Firestore indexes only the
    /// first 1,500 bytes of a value. PostgreSQL refuses a B-tree entry past about 2,700 bytes (a third of a page),
    /// and a key is one column of its entry, beside the collection, field and document ID or name.
    static let keyCap = IndexKeyCap(length: 1_500)

    /// A document's automatic entries as stored: keys cut, entries that became one kept once.
    static func storedEntries(_ fields: [String: Value]) -> [IndexEntry] {
        var cutAny = false
        let entries = IndexEntry.entries(for: fields).map { entry in
            guard entry.key.count > keyCap.length else { return entry }
            cutAny = true
            var cut = entry
            cut.key = keyCap.stored(entry.key)
            return cut
        }
        return cutAny ? Array(Set(entries)) : entries
    }

    /// A document's keys in a composite index as stored: cut, each once.
    static func storedKeys(_ definition: IndexDefinition, _ fields: [String: Value]) -> Set<[UInt8]> {
        Set(definition.keys(for: fields).lazy.map(keyCap.stored))
    }

    /// Notes in `pending` how the entries of the document at `path` change from its `old` fields to its `new` ones
    /// (`nil`: no document). Only entries that differ are deleted or inserted, so an update touching one field
    /// rewrites one entry.
    static func update(
        path: ResourcePath, old: [String: Value]?, new: [String: Value]?, catalog: IndexCatalog,
        into pending: inout PendingIndexRows
    ) {
        let collection = path.parent.description
        let id = path.lastSegment
        // Compared as stored: two entries cut to one are one row, which stays while either is left.
        let oldEntries = old.map(storedEntries) ?? []
        let newEntries = new.map(storedEntries) ?? []
        // A new document (the common write) has nothing to compare against; its entries are already distinct.
        let (removed, added) =
            oldEntries.isEmpty
            ? ([], newEntries)
            : (Array(Set(oldEntries).subtracting(newEntries)), Array(Set(newEntries).subtracting(oldEntries)))
        for entry in removed { pending.delete(.init(collection: collection, id: id, entry: entry)) }
        for entry in added { pending.insert(.init(collection: collection, id: id, entry: entry)) }
        // Building indexes too: a build covers only the documents written before the index existed.
        let indexes = catalog.indexes(forCollectionID: path.parent.lastSegment)
        guard !indexes.isEmpty, path.isDocument else { return }
        for index in indexes {
            let oldKeys = old.map { storedKeys(index.definition, $0) } ?? []
            let newKeys = new.map { storedKeys(index.definition, $0) } ?? []
            let nameKey = index.definition.nameKey(of: path)
            let scope = index.definition.scope(of: path)
            func row(_ key: [UInt8]) -> PendingIndexRows.CompositeRow {
                .init(indexID: index.id, scope: scope, key: key, nameKey: nameKey, path: path.description)
            }
            for key in oldKeys.subtracting(newKeys) { pending.delete(row(key)) }
            for key in newKeys.subtracting(oldKeys) { pending.insert(row(key)) }
        }
    }

    /// Inserts single-field entries; one already there is kept (a backfill may meet rows a commit wrote).
    static func insert(_ entries: [IndexEntry], collection: String, id: String, in db: PostgresConnection) throws {
        for chunk in chunks(entries) {
            var parameters: [PostgresParameter] = [.text(collection), .text(id)]
            var rows: [String] = []
            for entry in chunk {
                let base = parameters.count
                rows.append("($1, $\(base + 1), $\(base + 2)::int4, $\(base + 3)::bytea, $2)")
                parameters += [.text(entry.field), .int(Int64(entry.kind.rawValue)), .binary(entry.key)]
            }
            try db.query(
                "INSERT INTO index_entries(collection, field, kind, key, id) VALUES "
                    + rows.joined(separator: ", ") + " ON CONFLICT DO NOTHING", parameters)
        }
    }

    /// Inserts one document's keys into a composite index; one already there is kept.
    static func insertComposite(
        _ keys: [[UInt8]], indexID: Int64, scope: String, nameKey: [UInt8], path: ResourcePath,
        in db: PostgresConnection
    ) throws {
        for chunk in chunks(keys) {
            var parameters: [PostgresParameter] = [
                .int(indexID), .text(scope), .binary(nameKey), .text(path.description),
            ]
            var rows: [String] = []
            for key in chunk {
                rows.append("($1::int8, $2, $\(parameters.count + 1)::bytea, $3::bytea, $4)")
                parameters.append(.binary(key))
            }
            try db.query(
                "INSERT INTO composite_entries(index_id, scope, key, name_key, path) VALUES "
                    + rows.joined(separator: ", ") + " ON CONFLICT DO NOTHING", parameters)
        }
    }

    /// Deletes every entry (the wipe).
    static func deleteAll(in db: PostgresConnection) throws {
        try db.query("DELETE FROM index_entries")
        try db.query("DELETE FROM composite_entries")
    }

    static func chunks<T>(_ items: [T]) -> [ArraySlice<T>] {
        stride(from: 0, to: items.count, by: rowsPerStatement).map {
            items[$0..<min($0 + rowsPerStatement, items.count)]
        }
    }
}
