public import HearthCore

/// One case of a rules test file: who does what where, with which data, and whether it should be allowed.
///
/// JSON form (`hearth rules test`):
/// ```json
/// {"name": "alice reads her todo", "auth": {"uid": "alice", "token": {"email": "a@x"}}, "method": "get",
///  "path": "todos/t1", "resource": {"owner": "alice"}, "expect": "allow"}
/// ```
/// Firestore fields: `method` (get, list, create, update, delete), `path` (a document, or a collection for list),
/// `resource` (stored data; for list, the fields the query pins with `==`), `data` (the document as the write
/// leaves it), `query` (`limit`, `offset`, `orderBy`), `collectionGroup`, `documents` (other stored documents by
/// path, for `get()`/`exists()`), `documentsAfter` (for `getAfter()`; defaults to `documents` with this write applied),
/// `time` (RFC 3339). Database fields: `method` (read, write), `path`, `tree` (the whole tree before), `data` (the
/// value written at `path`; null deletes), `now` (milliseconds). `auth` is null, a uid string, or
/// `{"uid", "token"}`. Storage fields: `method` (get, list, create, update, delete), `path` (the object name, or the
/// prefix for list), `bucket` (default `demo.appspot.com`), `resource` (the stored object: `size`, `contentType`,
/// `metadata`), `data` (the object as the write leaves it), `documents` (for `firestore.get()`). Data is plain JSON:
/// whole numbers are integers, other numbers doubles.
public struct RulesTestCase: Sendable {
    /// A label for reports.
    public var name: String
    /// The caller; `nil` when signed out.
    public var auth: AuthContext?
    /// The operation: a ``FirestoreMethod`` name, or `read`/`write` for database rules.
    public var method: String
    /// The path, without a leading slash.
    public var path: [String]
    /// Stored document data (Firestore) before the request.
    public var resource: JSONValue?
    /// New data: the document after the write (Firestore) or the value written (database).
    public var data: JSONValue?
    /// Query details for list.
    public var query: RulesQueryInfo?
    /// For list: the query's filters (`"where": [["n", ">", 10], ["tags", "array-contains", "x"]]`, all of them
    /// together), which rules judge the list by.
    public var filter: QueryFilter?
    /// Whether a list is over a collection group.
    public var collectionGroup: Bool
    /// Other documents, by path, before the request.
    public var documents: [String: JSONValue]
    /// Documents after the request, when given explicitly.
    public var documentsAfter: [String: JSONValue]?
    /// The database tree before the request.
    public var tree: JSONValue?
    /// The bucket of a storage case.
    public var bucket: String
    /// `request.time` / `now`.
    public var time: Timestamp
    /// The expected outcome.
    public var expectAllow: Bool

    /// Parses a test file: a JSON array of cases, or an object with a `tests` array.
    public static func load(json text: String) throws(RulesTestError) -> [RulesTestCase] {
        let root: JSONValue
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw RulesTestError("test file is not valid JSON: \(error)")
        }
        guard let list = root.arrayValue ?? root["tests"]?.arrayValue else {
            throw RulesTestError("test file must be a JSON array of cases or {\"tests\": [...]}")
        }
        var cases: [RulesTestCase] = []
        for (index, item) in list.enumerated() {
            cases.append(try RulesTestCase(json: item, index: index))
        }
        return cases
    }

    init(json: JSONValue, index: Int) throws(RulesTestError) {
        let label = json["name"]?.stringValue ?? "case \(index + 1)"
        name = label
        guard json.objectValue != nil else { throw RulesTestError("\(label): a case must be a JSON object") }
        guard let method = json["method"]?.stringValue else { throw RulesTestError("\(label): missing \"method\"") }
        self.method = method
        guard let path = json["path"]?.stringValue else { throw RulesTestError("\(label): missing \"path\"") }
        self.path = path.split(separator: "/").map(String.init)
        switch json["auth"] {
        case nil, .null?: auth = nil
        case .string(let uid)?: auth = AuthContext(uid: uid, claims: [:], isAdmin: false)
        case .object(let fields)?:
            auth = AuthContext(
                uid: fields["uid"]?.stringValue, claims: fields["token"]?.objectValue ?? [:], isAdmin: false)
        default: throw RulesTestError("\(label): \"auth\" must be null, a uid string or {\"uid\", \"token\"}")
        }
        resource = json["resource"] ?? json["existing"]
        data = json["data"] ?? json["newData"]
        if let query = json["query"] {
            self.query = RulesQueryInfo(
                limit: query["limit"]?.int64Value.map { Int($0) }, offset: query["offset"]?.int64Value.map { Int($0) },
                orderBy: query["orderBy"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
        if let filters = json["where"] {
            filter = try Self.filter(filters, label)
        }
        collectionGroup = json["collectionGroup"]?.boolValue ?? false
        documents = json["documents"]?.objectValue ?? [:]
        documentsAfter = json["documentsAfter"]?.objectValue
        tree = json["tree"]
        bucket = json["bucket"]?.stringValue ?? "demo.appspot.com"
        if let text = json["time"]?.stringValue {
            guard let parsed = Timestamp(rfc3339: text) else { throw RulesTestError("\(label): bad \"time\"") }
            time = parsed
        } else if let now = json["now"]?.int64Value {
            time = Timestamp(microseconds: now * 1000)
        } else {
            time = Timestamp(seconds: 1_700_000_000, nanos: 0)
        }
        switch json["expect"]?.stringValue {
        case "allow"?: expectAllow = true
        case "deny"?: expectAllow = false
        default: throw RulesTestError("\(label): \"expect\" must be \"allow\" or \"deny\"")
        }
    }
}

extension RulesTestCase {
    /// The query operators as the client SDKs spell them.
    private static let operators: [String: FieldOperator] = [
        "<": .lessThan, "<=": .lessThanOrEqual, ">": .greaterThan, ">=": .greaterThanOrEqual, "==": .equal,
        "!=": .notEqual, "in": .in, "not-in": .notIn, "array-contains": .arrayContains,
        "array-contains-any": .arrayContainsAny,
    ]

    /// `[[field, op, value], …]` as one AND filter.
    fileprivate static func filter(_ json: JSONValue, _ label: String) throws(RulesTestError) -> QueryFilter {
        guard let items = json.arrayValue else {
            throw RulesTestError("\(label): \"where\" must be a list of [field, operator, value]")
        }
        var filters: [QueryFilter] = []
        for item in items {
            guard let parts = item.arrayValue, parts.count == 3, let field = parts[0].stringValue,
                let name = parts[1].stringValue, let op = operators[name]
            else {
                throw RulesTestError(
                    "\(label): each \"where\" entry is [field, operator, value] with an operator among "
                        + operators.keys.sorted().joined(separator: " "))
            }
            let path = FieldPath(segments: field.split(separator: ".").map(String.init))
            filters.append(.field(path, op, Value(plainJSON: parts[2])))
        }
        return .and(filters)
    }
}

/// A malformed test file or case.
public struct RulesTestError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var description: String
    init(_ description: String) { self.description = description }
}

extension Value {
    /// Plain JSON as a Firestore value: objects become maps, whole numbers integers.
    init(plainJSON json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .boolean(b)
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .array(let items): self = .array(items.map(Value.init(plainJSON:)))
        case .object(let fields): self = .map(fields.mapValues(Value.init(plainJSON:)))
        }
    }
}
