public import HearthCore

/// The five operations Firestore rules distinguish; `read` covers get and list, `write` the other three.
public enum FirestoreMethod: String, Sendable, CaseIterable {
    /// Reading one document.
    case get
    /// Listing or querying a collection.
    case list
    /// Writing a document that does not exist yet.
    case create
    /// Writing a document that exists.
    case update
    /// Deleting a document.
    case delete
}

/// What rules see of a query (`request.query`): its limit, offset and order.
public struct RulesQueryInfo: Sendable, Hashable {
    /// The query's limit, if any.
    public var limit: Int?
    /// The query's offset, if any.
    public var offset: Int?
    /// Field paths the query orders by.
    public var orderBy: [String]

    /// A query description.
    public init(limit: Int? = nil, offset: Int? = nil, orderBy: [String] = []) {
        self.limit = limit
        self.offset = offset
        self.orderBy = orderBy
    }
}

/// One request as the Firestore rules judge it.
public struct FirestoreRequest: Sendable {
    /// The operation.
    public var method: FirestoreMethod
    /// The document path (get/create/update/delete) or the collection path (list), relative to the documents root:
    /// `users/alice`. For a collection-group query, the single segment collection ID.
    public var path: ResourcePath
    /// The database ID bound to `{database}` (`(default)`).
    public var database: String
    /// The caller; `nil` when unauthenticated (`request.auth == null`).
    public var auth: AuthContext?
    /// `request.time`.
    public var time: Timestamp
    /// The stored document's fields before the request (`resource.data`); `nil` when it does not exist. For a list
    /// without ``queryConstraints``, the fields every returned document is known to hold.
    public var existingData: [String: Value]?
    /// For a list: what one branch of the query's filter says of every document it can return, which becomes
    /// `resource.data` (rules judge the query, not its results); ``existingData`` is then not used.
    public var queryConstraints: RulesQueryConstraints?
    /// The document's fields as the write would leave them (`request.resource.data`); for create and update.
    public var newData: [String: Value]?
    /// For list: the query's limit, offset and order.
    public var query: RulesQueryInfo?
    /// A list over a collection group: any parent path.
    public var isCollectionGroup: Bool
    /// Part of a commit, batch or transaction: the larger read budget applies.
    public var isBatch: Bool

    /// A request.
    public init(
        method: FirestoreMethod, path: ResourcePath, database: String = "(default)", auth: AuthContext?,
        time: Timestamp, existingData: [String: Value]? = nil, newData: [String: Value]? = nil,
        query: RulesQueryInfo? = nil, queryConstraints: RulesQueryConstraints? = nil, isCollectionGroup: Bool = false,
        isBatch: Bool = false
    ) {
        self.method = method
        self.path = path
        self.database = database
        self.auth = auth
        self.time = time
        self.existingData = existingData
        self.newData = newData
        self.query = query
        self.queryConstraints = queryConstraints
        self.isCollectionGroup = isCollectionGroup
        self.isBatch = isBatch
    }
}

/// Reads documents for `get()`, `exists()`, `getAfter()` and `existsAfter()`; the server implements it over its
/// store so the rules engine stays pure. A read that fails throws: the evaluation stops and the decision carries the
/// error (``RulesDecision/failure``), so a storage fault never reads as a missing document (which `!exists(…)` would
/// turn into an allow).
public protocol RulesDocumentReader {
    /// The document's fields before the request, or `nil` if it does not exist.
    func document(at path: ResourcePath) throws(HearthError) -> [String: Value]?
    /// The document's fields as they would be after the request's writes, or `nil` if it would not exist.
    func documentAfter(at path: ResourcePath) throws(HearthError) -> [String: Value]?
}

/// A reader that finds nothing: `exists()` is false everywhere.
public struct EmptyDocumentReader: RulesDocumentReader {
    /// The empty reader.
    public init() {}
    /// Always `nil`.
    public func document(at path: ResourcePath) -> [String: Value]? { nil }
    /// Always `nil`.
    public func documentAfter(at path: ResourcePath) -> [String: Value]? { nil }
}

/// What the rules decided, and why.
public struct RulesDecision: Sendable {
    /// How one allow statement (or the lack of one) came out.
    public struct Outcome: Sendable, Hashable, CustomStringConvertible {
        /// The allow statement's location.
        public var location: SourceLocation
        /// `true`, `false`, or the error that stopped evaluation.
        public var result: String
        /// `line:column: result`.
        public var description: String { "\(location): \(result)" }
    }

    /// Whether the request is allowed.
    public var isAllowed: Bool
    /// The read error that stopped the evaluation, if one did; the request is then not allowed, and the caller
    /// answers with this error rather than with a denial.
    public var failure: HearthError?
    /// The allow statement that granted access, when one did.
    public var grantedBy: SourceLocation?
    /// Each allow statement tried, in order; empty when no match block covers the path.
    public var outcomes: [Outcome]

    /// One line saying what decided: the granting rule, the rules that did not grant, or that none matched.
    public var explanation: String {
        if let grantedBy { return "allowed by the rule at \(grantedBy)" }
        if outcomes.isEmpty { return "denied: no allow statement matches this path and method" }
        return "denied: " + outcomes.map(\.description).joined(separator: "; ")
    }
}
