public import HearthCore
internal import HearthPostgres
public import HearthStore

/// Listings on PostgreSQL through the engine-neutral ``DocumentListing`` SQLite's engine runs too, each page read
/// in one snapshot.
extension PostgresDocumentStore {
    /// One page of a collection's documents: in name order, missing documents among them with `showMissing`, or
    /// in `orderBy` order through the query engine (with a query's index requirements), as SQLite's engine lists.
    public func listDocuments(_ request: ListDocumentsRequest) throws(HearthError) -> ListDocumentsPage {
        let (catalog, budget) = (catalog, configuration.maxResultBytes)
        return try refreshingCatalog { () throws(HearthError) in
            try readSnapshot("listing documents") { db in
                try DocumentListing.page(request, catalog: catalog, in: PostgresIndexScanner(db: db), budget: budget)
            }
        }
    }

    /// The IDs of the collections directly below `parent`, after `after`, in order.
    public func collectionIDs(under parent: ResourcePath, after: String?, limit: Int) throws(HearthError) -> [String] {
        try readSnapshot("listing collection IDs") { db in
            try DocumentListing.collectionIDs(
                under: parent, after: after, limit: limit, in: PostgresIndexScanner(db: db))
        }
    }
}
