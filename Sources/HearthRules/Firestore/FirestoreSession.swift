internal import Foundation
internal import HearthCore

/// The mutable state of one request's evaluation — budgets and the `get()` cache — shared by every allow statement
/// and, for a commit, every write in it.
final class FirestoreSession {
    typealias Function = FirestoreSyntax.Function

    let reader: any RulesDocumentReader
    let limits: RulesLimits
    let maximumReads: Int
    /// Set at the first time check rather than up front: reading the clock costs as much as a small rule.
    private var deadline: ContinuousClock.Instant?
    var steps = 0
    var callDepth = 0
    var reads = 0
    private var readCache: [String: RulesValue] = [:]
    /// The first error a document read threw; it ends the evaluation (``RulesDecision/failure``).
    private(set) var readFailure: HearthError?
    /// The functions visible to the rule being evaluated (its own block's and every enclosing block's).
    var functions: [String: Function] = [:]
    /// The globals a function body sees: `request`, `resource` and the match wildcards.
    var globals = Environment()

    init(reader: any RulesDocumentReader, limits: RulesLimits, isBatch: Bool) {
        self.reader = reader
        self.limits = limits
        maximumReads = isBatch ? limits.maximumBatchReads : limits.maximumReads
    }

    /// Starts the expression budget afresh for the next document of a commit; the read budget and cache stay shared
    /// across the commit, as Firestore counts reads per request, and so does the time budget: a commit is judged on
    /// the store's single writer thread, which a per-document budget would let a large commit hold for many times it.
    func beginDocument() {
        steps = 0
    }

    func fail(_ message: String, _ location: SourceLocation) -> EvaluationError {
        EvaluationError(message: message, location: location)
    }

    // MARK: expressions

    func evaluate(_ e: Expression, _ env: Environment) throws(EvaluationError) -> RulesValue {
        steps += 1
        if steps > limits.maximumSteps {
            throw EvaluationError(
                message: "evaluation limit of \(limits.maximumSteps) expressions exceeded", location: e.location,
                isFatal: true)
        }
        if steps & 63 == 0 {
            let now = ContinuousClock.now
            if let deadline {
                if now > deadline {
                    throw EvaluationError(
                        message: "evaluation time limit exceeded", location: e.location, isFatal: true)
                }
            } else {
                deadline = now + .nanoseconds(limits.maximumNanoseconds)
            }
        }
        switch e.kind {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .integer(let i): return .int(i)
        case .float(let d): return .float(d)
        case .string(let s): return .string(s)
        case .regex(let r): return .string(r)
        case .identifier(let name):
            if let value = env.lookup(name) { return value }
            switch name {
            case "math", "timestamp", "duration", "latlng", "hashing": return .namespace(name)
            default: throw fail("unknown variable '\(name)'", e.location)
            }
        case .list(let elements):
            var values: [RulesValue] = []
            values.reserveCapacity(elements.count)
            for element in elements { values.append(try evaluate(element, env)) }
            return .list(values)
        case .map(let entries):
            var fields: [String: RulesValue] = [:]
            for (key, value) in entries { fields[key] = try evaluate(value, env) }
            return .map(fields)
        case .path(let parts):
            var segments: [String] = []
            for part in parts {
                switch part {
                case .literal(let s): segments.append(s)
                case .interpolation(let inner):
                    switch try evaluate(inner, env) {
                    case .string(let s): segments.append(contentsOf: s.split(separator: "/").map(String.init))
                    case .int(let i): segments.append(String(i))
                    case .path(let p): segments.append(contentsOf: p)
                    case let other: throw fail("cannot interpolate a \(other.typeName) into a path", inner.location)
                    }
                }
            }
            return .path(segments)
        case .member(let base, let name):
            return try member(try evaluate(base, env), name, e.location)
        case .index(let base, let index):
            return try subscriptValue(try evaluate(base, env), try evaluate(index, env), e.location)
        case .slice(let base, let start, let end):
            let value = try evaluate(base, env)
            let from = try start.map { (s) throws(EvaluationError) in try evaluate(s, env) }
            let to = try end.map { (s) throws(EvaluationError) in try evaluate(s, env) }
            return try slice(value, from, to, e.location)
        case .call(let name, let arguments):
            return try call(name, arguments, env, e.location)
        case .method(let base, let name, let arguments):
            let receiver = try evaluate(base, env)
            var values: [RulesValue] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(try evaluate(argument, env)) }
            if case .namespace("firestore") = receiver {
                // Storage rules' cross-service reads: the same document reads as `get()` and `exists()`.
                return try firestoreCall(name, values, e.location)
            }
            return try RulesMethods.call(receiver, name, values, e.location, session: self)
        case .unary(let op, let operand):
            let value = try evaluate(operand, env)
            switch (op, value) {
            case (.not, .bool(let b)): return .bool(!b)
            case (.negate, .int(let i)):
                guard i != .min else { throw fail("integer overflow", e.location) }
                return .int(-i)
            case (.negate, .float(let d)): return .float(-d)
            case (.negate, .duration(let d)): return .duration(-d)
            default: throw fail("operator \(op == .not ? "!" : "-") does not apply to \(value.typeName)", e.location)
            }
        case .binary(.or, let lhs, let rhs):
            // Errors are absorbed when the other side decides: `error || true` is true (Firestore semantics).
            var leftError: EvaluationError?
            do {
                if try truth(try evaluate(lhs, env), lhs.location) { return .bool(true) }
            } catch {
                if error.isFatal { throw error }
                leftError = error
            }
            let right = try truth(try evaluate(rhs, env), rhs.location)
            if right { return .bool(true) }
            if let leftError { throw leftError }
            return .bool(false)
        case .binary(.and, let lhs, let rhs):
            var leftError: EvaluationError?
            do {
                if !(try truth(try evaluate(lhs, env), lhs.location)) { return .bool(false) }
            } catch {
                if error.isFatal { throw error }
                leftError = error
            }
            let right = try truth(try evaluate(rhs, env), rhs.location)
            if !right { return .bool(false) }
            if let leftError { throw leftError }
            return .bool(true)
        case .binary(let op, let lhs, let rhs):
            return try RulesOperators.apply(op, try evaluate(lhs, env), try evaluate(rhs, env), e.location)
        case .conditional(let condition, let then, let otherwise):
            return try truth(try evaluate(condition, env), condition.location)
                ? try evaluate(then, env) : try evaluate(otherwise, env)
        case .isType(let operand, let type):
            let value = try evaluate(operand, env)
            if case .constrained(let constraint) = value {
                return .bool(try QueryProof.isType(constraint, type, e.location))
            }
            return .bool(RulesOperators.isType(value, type))
        }
    }

    func truth(_ value: RulesValue, _ location: SourceLocation) throws(EvaluationError) -> Bool {
        guard case .bool(let b) = value else { throw fail("expected a bool, got \(value.typeName)", location) }
        return b
    }

    func member(_ value: RulesValue, _ name: String, _ location: SourceLocation) throws(EvaluationError) -> RulesValue {
        switch value {
        case .object(let object):
            guard let field = object.member(name) else { throw fail("property '\(name)' is undefined", location) }
            return field
        case .map(let fields):
            guard let field = fields[name] else { throw fail("property '\(name)' is undefined", location) }
            return field
        case .latlng(let latitude, let longitude) where name == "latitude" || name == "longitude":
            return .float(name == "latitude" ? latitude : longitude)
        default:
            throw fail("cannot read property '\(name)' of \(value.typeName)", location)
        }
    }

    func subscriptValue(
        _ value: RulesValue, _ index: RulesValue, _ location: SourceLocation
    ) throws(EvaluationError)
        -> RulesValue
    {
        switch (value, index) {
        case (.object(let object), .string(let key)):
            guard let field = object.member(key) else { throw fail("key '\(key)' is undefined", location) }
            return field
        case (.map(let fields), .string(let key)):
            guard let field = fields[key] else { throw fail("key '\(key)' is undefined", location) }
            return field
        case (.list(let elements), .int(let i)):
            guard i >= 0 && i < elements.count else { throw fail("index \(i) out of range", location) }
            return elements[Int(i)]
        case (.path(let segments), .int(let i)):
            guard i >= 0 && i < segments.count else { throw fail("index \(i) out of range", location) }
            return .string(segments[Int(i)])
        case (.string(let s), .int(let i)):
            let characters = Array(s)
            guard i >= 0 && i < characters.count else { throw fail("index \(i) out of range", location) }
            return .string(String(characters[Int(i)]))
        default:
            throw fail("cannot index \(value.typeName) with \(index.typeName)", location)
        }
    }

    func slice(
        _ value: RulesValue, _ start: RulesValue?, _ end: RulesValue?, _ location: SourceLocation
    )
        throws(EvaluationError) -> RulesValue
    {
        func bound(_ v: RulesValue?, _ fallback: Int, _ count: Int) throws(EvaluationError) -> Int {
            guard let v else { return fallback }
            guard case .int(let i) = v else { throw fail("slice bounds must be int", location) }
            return max(0, min(count, Int(clamping: i)))
        }
        switch value {
        case .list(let elements):
            let from = try bound(start, 0, elements.count)
            let to = try bound(end, elements.count, elements.count)
            return .list(from < to ? Array(elements[from..<to]) : [])
        case .string(let s):
            let characters = Array(s)
            let from = try bound(start, 0, characters.count)
            let to = try bound(end, characters.count, characters.count)
            return .string(from < to ? String(characters[from..<to]) : "")
        default:
            throw fail("cannot slice \(value.typeName)", location)
        }
    }

    // MARK: calls

    func call(
        _ name: String, _ arguments: [Expression], _ env: Environment, _ location: SourceLocation
    )
        throws(EvaluationError) -> RulesValue
    {
        var values: [RulesValue] = []
        values.reserveCapacity(arguments.count)
        for argument in arguments { values.append(try evaluate(argument, env)) }
        if let function = functions[name] {
            guard function.parameters.count == values.count else {
                throw fail(
                    "function '\(name)' takes \(function.parameters.count) arguments, got \(values.count)", location)
            }
            callDepth += 1
            defer { callDepth -= 1 }
            guard callDepth <= limits.maximumCallDepth else {
                throw EvaluationError(message: "function call depth limit exceeded", location: location, isFatal: true)
            }
            var scope = globals
            for (parameter, value) in zip(function.parameters, values) { scope.bind(parameter, value) }
            for (variable, expression) in function.lets { scope.bind(variable, try evaluate(expression, scope)) }
            return try evaluate(function.body, scope)
        }
        switch name {
        case "get", "exists", "getAfter", "existsAfter":
            guard values.count == 1, case .path(let segments) = values[0] else {
                throw fail("\(name)() takes one path", location)
            }
            let resource = try read(segments, after: name.hasSuffix("After"), location)
            if name.hasPrefix("exists") {
                if case .null = resource { return .bool(false) }
                return .bool(true)
            }
            return resource
        case "debug":
            guard values.count == 1 else { throw fail("debug() takes one argument", location) }
            return values[0]
        default:
            return try RulesFunctions.global(name, values, location)
        }
    }

    /// `firestore.get(path)` and `firestore.exists(path)` in storage rules.
    func firestoreCall(
        _ name: String, _ values: [RulesValue], _ location: SourceLocation
    ) throws(EvaluationError)
        -> RulesValue
    {
        guard name == "get" || name == "exists" else { throw fail("unknown function 'firestore.\(name)'", location) }
        guard values.count == 1, case .path(let segments) = values[0] else {
            throw fail("firestore.\(name)() takes one path", location)
        }
        let resource = try read(segments, after: false, location)
        guard name == "exists" else { return resource }
        if case .null = resource { return .bool(false) }
        return .bool(true)
    }

    /// A document as rules see it (`{data, id, __name__}`), or null; counted against the read budget, cached.
    func read(_ segments: [String], after: Bool, _ location: SourceLocation) throws(EvaluationError) -> RulesValue {
        guard segments.count >= 5, segments[0] == "databases", segments[2] == "documents",
            (segments.count - 3) % 2 == 0
        else { throw fail("path '/\(segments.joined(separator: "/"))' is not a document path", location) }
        let key = (after ? "A/" : "B/") + segments.joined(separator: "/")
        if let cached = readCache[key] { return cached }
        reads += 1
        guard reads <= maximumReads else {
            throw EvaluationError(
                message: "limit of \(maximumReads) document reads exceeded", location: location, isFatal: true)
        }
        let path = ResourcePath(segments: Array(segments.dropFirst(3)))
        let fields: [String: Value]?
        do {
            fields = after ? try reader.documentAfter(at: path) : try reader.document(at: path)
        } catch {
            readFailure = readFailure ?? error
            throw EvaluationError(message: "reading a document failed", location: location, isFatal: true)
        }
        let resource = fields.map { Self.resource(path: segments, data: $0) } ?? .null
        readCache[key] = resource
        return resource
    }

    /// `{data, id, __name__}` for a document at `path` (full rules path, `databases/…`).
    static func resource(path: [String], data: [String: Value]) -> RulesValue {
        .object(ResourceObject(path: path, data: data))
    }
}
