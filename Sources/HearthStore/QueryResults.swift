public import HearthCore

/// What a query returned, and what it cost.
public struct QueryResults: Sendable {
    /// The matching documents, in query order (projected when the query has a `select`).
    public var documents: [StoredDocument]
    /// How the query was read: one description per AND-group of its filter.
    public var plans: [String]
    /// Index entries read.
    public var indexEntriesRead: Int
    /// Documents fetched and checked.
    public var documentsRead: Int
    /// Whether the results stopped short at the engine's bound on an answer's bytes (a listing's page, which then
    /// ends early with a page token); a query past the bound fails instead.
    public var truncated: Bool

    /// Creates results.
    public init(
        documents: [StoredDocument], plans: [String], indexEntriesRead: Int, documentsRead: Int, truncated: Bool = false
    ) {
        self.documents = documents
        self.plans = plans
        self.indexEntriesRead = indexEntriesRead
        self.documentsRead = documentsRead
        self.truncated = truncated
    }
}

/// What an aggregation returned, and what it cost.
public struct AggregationResults: Sendable {
    /// One value per alias.
    public var values: [String: Value]
    /// How the query was read.
    public var plans: [String]
    /// Index entries read.
    public var indexEntriesRead: Int
    /// Documents fetched.
    public var documentsRead: Int

    /// Creates results.
    public init(values: [String: Value], plans: [String], indexEntriesRead: Int, documentsRead: Int) {
        self.values = values
        self.plans = plans
        self.indexEntriesRead = indexEntriesRead
        self.documentsRead = documentsRead
    }
}
