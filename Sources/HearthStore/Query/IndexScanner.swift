package import HearthCore

/// What the engine-neutral query, listing and transaction code asks of an engine's storage: pages of index rows in
/// key order, document rows by name, and counts over the same ranges. Each engine answers these with its own SQL
/// over its own tables, always through an index (SQLite's primary keys and `documents_by_group`; PostgreSQL's
/// B-trees), so every plan the ``QueryPlanner`` makes is a set of index range scans on either engine.
///
/// Pages continue strictly after the last row of the previous one, so each call is one index seek.
package protocol IndexScanner: DocumentScanner {
    /// The documents whose collection ID is `collectionID` (every collection when empty: a kindless scan, kept to
    /// `parent`'s subtree) with a name key in `range`, strictly past `after`, in name-key order, at most `limit`.
    func groupDocuments(
        collectionID: String, parent: ResourcePath, range: KeyRange, after: [UInt8]?, descending: Bool, limit: Int
    ) throws -> [(path: ResourcePath, nameKey: [UInt8])]

    /// Rows of a single-field or composite index with a key in `range`, from `start` on (inclusive) and strictly
    /// past `after`, in (key, tie-breaker) order, at most `limit`.
    func indexRows(
        _ index: IndexTable, range: KeyRange, start: IndexScanStart?, after: IndexRow?, descending: Bool, limit: Int
    ) throws -> [IndexRow]

    /// The IDs of `collection`'s documents with one single-field index key, from `target` on (strictly past it
    /// when not `inclusive`; the start when `nil`), in ID order, at most `limit`.
    func pointIDs(
        _ point: IndexPoint, from target: String?, inclusive: Bool, descending: Bool, limit: Int
    ) throws -> [String]

    /// How many rows `target` covers, counting no further than `cap`.
    func count(_ target: CountTarget, cap: Int64) throws -> Int64

    /// The longest index key the engine stores whole; `nil` when it stores every key whole. Keys and ranges the
    /// scans are given are stored keys (``IndexKeyCap/stored(_:)``, ``IndexKeyCap/widened(_:)``).
    var indexKeyCap: IndexKeyCap? { get }

    /// As ``count(_:cap:)``, but `nil` when a row it counted has a stored key at the cap (``IndexKeyCap/isCut(_:)``),
    /// which a count from the index alone cannot take at its word. Rows past `cap` need no look: were every counted
    /// row a match, the answer is `cap` whatever follows.
    func countUncut(_ target: CountTarget, cap: Int64) throws -> Int64?
}

extension IndexScanner {
    /// Every key stored whole (SQLite).
    package var indexKeyCap: IndexKeyCap? { nil }

    /// Where no key is cut, every count stands.
    package func countUncut(_ target: CountTarget, cap: Int64) throws -> Int64? {
        try count(target, cap: cap)
    }
}

/// The part of ``IndexScanner`` that reads the documents table alone — documents by name, a collection's IDs in
/// order, the collection paths in order — which is all a listing in name order needs (``DocumentListing``).
package protocol DocumentScanner {
    /// The stored document at `path`, or `nil`.
    func document(at path: ResourcePath) throws -> StoredDocument?

    /// The IDs of `collection`'s documents within the inclusive `bounds`, strictly past `after` in the scan's
    /// direction, in ID (byte) order, at most `limit`.
    func documentIDs(
        in collection: ResourcePath, bounds: ClosedIDRange, after: String?, descending: Bool, limit: Int
    ) throws -> [String]

    /// The first stored document's collection path in [`start`, `upper`) (`start` itself only when `inclusive`),
    /// in byte order: the step of ``CollectionPathWalk``.
    func firstCollectionPath(from start: String, inclusive: Bool, below upper: String) throws -> String?
}

/// An index a scan reads.
package enum IndexTable: Sendable, Equatable {
    /// A collection's automatic single-field index on one field; ties ordered by document ID.
    case field(collection: ResourcePath, field: String, kind: IndexEntry.Kind)
    /// A declared composite index's entries under one scope; ties ordered by name key.
    case composite(indexID: Int64, scope: String)
}

/// The tie-breaker that orders index rows with equal keys.
package enum IndexTie: Sendable, Equatable {
    /// The document ID (single-field indexes).
    case id(String)
    /// The name key (composite indexes; inverted when the index orders names descending).
    case nameKey([UInt8])
}

/// One row of an index: its key, its tie-breaker, and the document it stands for.
package struct IndexRow: Sendable, Equatable {
    package var key: [UInt8]
    package var tie: IndexTie
    package var path: ResourcePath

    package init(key: [UInt8], tie: IndexTie, path: ResourcePath) {
        self.key = key
        self.tie = tie
        self.path = path
    }
}

/// Where a cursor puts a scan's start: a key (prefix) and, for a cursor that names a document, its tie-breaker.
/// Rows before it in scan order are skipped by the index seek; the matcher settles the edge.
package struct IndexScanStart: Sendable, Equatable {
    package var key: [UInt8]
    package var tie: IndexTie?
}

/// One key of one field's single-field index in one collection: what an equality pins.
package struct IndexPoint: Sendable, Equatable {
    package var collection: ResourcePath
    package var field: String
    package var kind: IndexEntry.Kind
    package var key: [UInt8]
}

/// What an exact plan counts from the index alone.
package enum CountTarget: Sendable, Equatable {
    /// A collection's documents.
    case collection(ResourcePath)
    /// The documents with a collection ID (every one when empty) below a parent.
    case group(collectionID: String, parent: ResourcePath)
    /// Index rows in one key range.
    case range(IndexTable, KeyRange)
    /// Documents with one single-field index key.
    case point(IndexPoint)
}
