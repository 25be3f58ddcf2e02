internal import HearthCore

/// A map whose fields are produced on demand: `request`, `resource` and document data. Most rules read one or two
/// fields, so converting a whole document (or the caller's token claims) per request would dominate evaluation.
protocol RulesObject: AnyObject, Sendable {
    /// One field, or `nil` when absent.
    func member(_ name: String) -> RulesValue?
    /// Every field, for map methods, equality and `in`.
    func materialize() -> [String: RulesValue]
    /// Whether only some fields are known (a list's `resource.data`), so ``materialize()`` is not the whole map.
    var isPartial: Bool { get }
    /// The field names, in no order.
    var memberNames: [String] { get }
}

extension RulesObject {
    /// Objects know all their fields unless they say otherwise.
    var isPartial: Bool { false }
    /// The names of the materialized map.
    var memberNames: [String] { Array(materialize().keys) }
}

/// Document fields, converted one at a time.
final class DocumentDataObject: RulesObject {
    let fields: [String: Value]
    init(_ fields: [String: Value]) { self.fields = fields }
    func member(_ name: String) -> RulesValue? { fields[name].map(RulesValue.init) }
    func materialize() -> [String: RulesValue] { fields.mapValues(RulesValue.init) }
    var memberNames: [String] { Array(fields.keys) }
}

/// A list's `resource.data`: what the query's filters say of every document it can return — the pinned fields as
/// values, the other constrained fields as ``RulesValue/constrained(_:)`` — and nothing of any other field.
final class QueryDataObject: RulesObject {
    let pinned: [String: Value]
    let constraints: [FieldPath: RulesFieldConstraint]
    init(pinned: [String: Value], constraints: [FieldPath: RulesFieldConstraint]) {
        self.pinned = pinned
        self.constraints = constraints
    }
    var isPartial: Bool { true }
    func member(_ name: String) -> RulesValue? {
        var below: [FieldPath: RulesFieldConstraint] = [:]
        for (path, constraint) in constraints where path.segments.count > 1 && path.segments[0] == name {
            below[FieldPath(segments: Array(path.segments.dropFirst()))] = constraint
        }
        if let value = pinned[name] {
            guard !below.isEmpty, case .map(let fields) = value else { return RulesValue(value) }
            return .object(QueryDataObject(pinned: fields, constraints: below))
        }
        if let constraint = constraints[FieldPath(segments: [name])] { return .constrained(constraint) }
        return below.isEmpty ? nil : .object(QueryDataObject(pinned: [:], constraints: below))
    }
    func materialize() -> [String: RulesValue] {
        var fields: [String: RulesValue] = [:]
        for name in Set(pinned.keys).union(constraints.keys.map { $0.segments[0] }) { fields[name] = member(name) }
        return fields
    }
}

/// `resource` / `request.resource` / a `get()` result: `data`, `id`, `__name__`.
final class ResourceObject: RulesObject {
    let path: [String]
    let data: any RulesObject
    init(path: [String], data: [String: Value]) {
        self.path = path
        self.data = DocumentDataObject(data)
    }
    init(path: [String], query: RulesQueryConstraints) {
        self.path = path
        data = QueryDataObject(pinned: query.pinned, constraints: query.fields)
    }
    func member(_ name: String) -> RulesValue? {
        switch name {
        case "data": .object(data)
        case "id": .string(path.last ?? "")
        case "__name__": .path(path)
        default: nil
        }
    }
    func materialize() -> [String: RulesValue] {
        ["data": .object(data), "id": .string(path.last ?? ""), "__name__": .path(path)]
    }
}

/// `request.auth`: `uid` and `token` (the ID token's claims).
final class AuthObject: RulesObject {
    let auth: AuthContext
    init(_ auth: AuthContext) { self.auth = auth }
    func member(_ name: String) -> RulesValue? {
        switch name {
        case "uid": auth.uid.map(RulesValue.string) ?? .null
        case "token": .map(auth.claims.mapValues(RulesValue.init(json:)))
        default: nil
        }
    }
    func materialize() -> [String: RulesValue] { ["uid": member("uid")!, "token": member("token")!] }
}

/// `request`: `auth`, `method`, `path`, `time`, `resource`, `query`.
final class RequestObject: RulesObject {
    let request: FirestoreRequest
    let path: [String]
    /// `auth` and `resource`, made once: rules read `request.auth` several times per condition.
    private let auth: RulesValue
    private let resource: RulesValue
    init(_ request: FirestoreRequest, path: [String]) {
        self.request = request
        self.path = path
        if let auth = request.auth, !auth.isAdmin || auth.uid != nil {
            self.auth = .object(AuthObject(auth))
        } else {
            auth = .null
        }
        resource = request.newData.map { .object(ResourceObject(path: path, data: $0)) } ?? .null
    }
    func member(_ name: String) -> RulesValue? {
        switch name {
        case "auth": return auth
        case "method": return .string(request.method.rawValue)
        case "path": return .path(path)
        case "time": return .timestamp(request.time)
        case "resource": return resource
        case "query":
            guard let query = request.query else { return nil }
            return .map([
                "limit": query.limit.map { .int(Int64($0)) } ?? .null,
                "offset": query.offset.map { .int(Int64($0)) } ?? .null,
                "orderBy": .list(query.orderBy.map(RulesValue.string)),
            ])
        default: return nil
        }
    }
    func materialize() -> [String: RulesValue] {
        var fields: [String: RulesValue] = [:]
        for name in ["auth", "method", "path", "time", "resource", "query"] { fields[name] = member(name) }
        return fields
    }
}
