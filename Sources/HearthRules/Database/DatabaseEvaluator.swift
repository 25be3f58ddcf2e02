internal import Foundation
internal import HearthCore

/// Evaluates Realtime Database rule expressions: `auth`, `data`, `newData`, `root`, `now`, `$wildcards`, snapshot
/// methods, string methods and JavaScript-style operators.
final class DatabaseEvaluator {
    let auth: AuthContext?
    let before: any TreeDataReader
    let after: any TreeDataReader
    let now: Double
    /// `query`: the read's query parameters (`orderByChild`, `equalTo`, `limitToFirst`…) over their defaults.
    let query: [String: JSONValue]
    let limits: RulesLimits
    private let deadline: ContinuousClock.Instant
    private var steps = 0

    init(
        auth: AuthContext?, before: any TreeDataReader, after: any TreeDataReader, now: Double,
        query: [String: JSONValue] = [:], limits: RulesLimits
    ) {
        self.auth = auth
        self.before = before
        self.after = after
        self.now = now
        self.query = Self.queryDefaults.merging(query) { _, given in given }
        self.limits = limits
        deadline = .now + .nanoseconds(limits.maximumNanoseconds)
    }

    /// What `query` holds for a read without query parameters (and for every write), as in Firebase.
    static let queryDefaults: [String: JSONValue] = [
        "orderByKey": false, "orderByPriority": false, "orderByValue": false, "orderByChild": .null, "startAt": .null,
        "startAfter": .null, "endAt": .null, "endBefore": .null, "equalTo": .null, "limitToFirst": .null,
        "limitToLast": .null,
    ]

    func fail(_ message: String, _ location: SourceLocation) -> EvaluationError {
        EvaluationError(message: message, location: location)
    }

    /// Evaluates one rule at `path` with the wildcard `bindings`; `newData` exists only for writes.
    func evaluate(
        _ rule: DatabaseRuleNode.Rule, path: [String], bindings: [(String, String)], isWrite: Bool
    )
        throws(EvaluationError) -> Bool
    {
        if let constant = rule.constant { return constant }
        guard let expression = rule.expression else { return false }
        steps = 0
        let scope = Scope(path: path, bindings: bindings, isWrite: isWrite)
        guard case .bool(let result) = try evaluate(expression, scope) else {
            throw fail("rule did not evaluate to a boolean", rule.location)
        }
        return result
    }

    struct Scope {
        var path: [String]
        var bindings: [(String, String)]
        var isWrite: Bool
    }

    func evaluate(_ e: Expression, _ scope: Scope) throws(EvaluationError) -> DatabaseValue {
        steps += 1
        if steps > limits.maximumSteps {
            throw EvaluationError(message: "evaluation limit exceeded", location: e.location, isFatal: true)
        }
        if steps & 63 == 0 && ContinuousClock.now > deadline {
            throw EvaluationError(message: "evaluation time limit exceeded", location: e.location, isFatal: true)
        }
        switch e.kind {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .integer(let i): return .number(Double(i))
        case .float(let d): return .number(d)
        case .string(let s): return .string(s)
        case .regex(let r): return .regex(r)
        case .identifier(let name):
            switch name {
            case "auth":
                guard let auth, auth.uid != nil || !auth.isAdmin else { return .null }
                var members: [String: JSONValue] = ["token": .object(auth.claims)]
                members["uid"] = auth.uid.map(JSONValue.string) ?? .null
                members["provider"] = auth.signInProvider.map(JSONValue.string) ?? .null
                return .json(.object(members))
            case "data": return .snapshot(after: false, path: scope.path)
            case "newData":
                guard scope.isWrite else { throw fail("newData is only defined in write rules", e.location) }
                return .snapshot(after: true, path: scope.path)
            case "root": return .snapshot(after: false, path: [])
            case "now": return .number(now)
            case "query": return .json(.object(query))
            default:
                if let binding = scope.bindings.last(where: { $0.0 == name }) { return .string(binding.1) }
                throw fail("unknown variable '\(name)'", e.location)
            }
        case .member(let base, let name):
            let value = try evaluate(base, scope)
            switch value {
            case .json(.object(let members)):
                return members[name].map(DatabaseValue.init) ?? .null
            case .string(let s) where name == "length":
                return .number(Double(s.count))
            default:
                throw fail("cannot read property '\(name)' of \(value.typeName)", e.location)
            }
        case .index(let base, let index):
            let value = try evaluate(base, scope)
            let key = try evaluate(index, scope)
            switch (value, key) {
            case (.json(.object(let members)), .string(let k)): return members[k].map(DatabaseValue.init) ?? .null
            default: throw fail("cannot index \(value.typeName)", e.location)
            }
        case .method(let base, let name, let arguments):
            let receiver = try evaluate(base, scope)
            var values: [DatabaseValue] = []
            for argument in arguments { values.append(try evaluate(argument, scope)) }
            return try method(receiver, name, values, e.location)
        case .unary(.not, let operand):
            guard case .bool(let b) = try evaluate(operand, scope) else {
                throw fail("'!' needs a boolean", e.location)
            }
            return .bool(!b)
        case .unary(.negate, let operand):
            guard case .number(let n) = try evaluate(operand, scope) else {
                throw fail("'-' needs a number", e.location)
            }
            return .number(-n)
        case .binary(.or, let lhs, let rhs):
            if case .bool(true) = try evaluate(lhs, scope) { return .bool(true) }
            return .bool(try truth(try evaluate(rhs, scope), rhs.location))
        case .binary(.and, let lhs, let rhs):
            guard try truth(try evaluate(lhs, scope), lhs.location) else { return .bool(false) }
            return .bool(try truth(try evaluate(rhs, scope), rhs.location))
        case .binary(let op, let lhs, let rhs):
            return try binary(op, try evaluate(lhs, scope), try evaluate(rhs, scope), e.location)
        case .conditional(let condition, let then, let otherwise):
            return try truth(try evaluate(condition, scope), condition.location)
                ? try evaluate(then, scope) : try evaluate(otherwise, scope)
        case .list(let items):
            var strings: [JSONValue] = []
            for item in items {
                guard case .string(let s) = try evaluate(item, scope) else {
                    throw fail("lists may only hold strings here", item.location)
                }
                strings.append(.string(s))
            }
            return .json(.array(strings))
        default:
            throw fail("expression not supported in database rules", e.location)
        }
    }

    func truth(_ value: DatabaseValue, _ location: SourceLocation) throws(EvaluationError) -> Bool {
        guard case .bool(let b) = value else { throw fail("expected a boolean, got \(value.typeName)", location) }
        return b
    }

    func binary(
        _ op: Expression.BinaryOperator, _ a: DatabaseValue, _ b: DatabaseValue, _ location: SourceLocation
    )
        throws(EvaluationError) -> DatabaseValue
    {
        switch (op, a, b) {
        case (.equal, _, _): return .bool(DatabaseValue.equal(a, b))
        case (.notEqual, _, _): return .bool(!DatabaseValue.equal(a, b))
        case (.add, .string(let x), .string(let y)): return .string(x + y)
        case (.add, .string(let x), .number(let y)): return .string(x + Self.format(y))
        case (.add, .number(let x), .string(let y)): return .string(Self.format(x) + y)
        case (_, .number(let x), .number(let y)):
            switch op {
            case .add: return .number(x + y)
            case .subtract: return .number(x - y)
            case .multiply: return .number(x * y)
            case .divide: return .number(x / y)
            case .remainder: return .number(x.truncatingRemainder(dividingBy: y))
            case .less: return .bool(x < y)
            case .lessOrEqual: return .bool(x <= y)
            case .greater: return .bool(x > y)
            case .greaterOrEqual: return .bool(x >= y)
            default: break
            }
        case (_, .string(let x), .string(let y)):
            switch op {
            case .less: return .bool(x < y)
            case .lessOrEqual: return .bool(x <= y)
            case .greater: return .bool(x > y)
            case .greaterOrEqual: return .bool(x >= y)
            default: break
            }
        default: break
        }
        throw fail("operator \(op.rawValue) does not apply to \(a.typeName) and \(b.typeName)", location)
    }

    /// Numbers print as JavaScript does: integral values without a fraction.
    static func format(_ n: Double) -> String {
        if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
        return String(n)
    }

    func method(
        _ receiver: DatabaseValue, _ name: String, _ args: [DatabaseValue], _ location: SourceLocation
    )
        throws(EvaluationError) -> DatabaseValue
    {
        func string(_ i: Int) throws(EvaluationError) -> String {
            guard i < args.count, case .string(let s) = args[i] else {
                throw fail("\(name)() takes a string argument", location)
            }
            return s
        }
        switch receiver {
        case .snapshot(let isAfter, let path):
            let reader = isAfter ? after : before
            switch name {
            case "child":
                let child = try string(0).split(separator: "/").map(String.init)
                return .snapshot(after: isAfter, path: path + child)
            case "parent":
                guard !path.isEmpty else { return .null }
                return .snapshot(after: isAfter, path: Array(path.dropLast()))
            case "val":
                return reader.value(at: path).map(DatabaseValue.init) ?? .null
            case "exists": return .bool(reader.value(at: path) != nil)
            case "hasChild":
                return .bool(reader.value(at: path + (try string(0)).split(separator: "/").map(String.init)) != nil)
            case "hasChildren":
                guard case .object(let members)? = reader.value(at: path) else { return .bool(false) }
                if args.isEmpty { return .bool(!members.isEmpty) }
                guard case .json(.array(let keys)) = args[0] else { throw fail("hasChildren() takes a list", location) }
                return .bool(
                    keys.allSatisfy { key in key.stringValue.map { members[$0].map { !$0.isNull } ?? false } ?? false })
            case "isNumber":
                switch reader.value(at: path) {
                case .integer?, .double?: return .bool(true)
                default: return .bool(false)
                }
            case "isString":
                if case .string? = reader.value(at: path) { return .bool(true) }
                return .bool(false)
            case "isBoolean":
                if case .bool? = reader.value(at: path) { return .bool(true) }
                return .bool(false)
            case "getPriority": return reader.priority(at: path).map(DatabaseValue.init) ?? .null
            default: throw fail("snapshot has no method '\(name)'", location)
            }
        case .string(let s):
            switch name {
            case "contains": return .bool(s.contains(try string(0)))
            case "beginsWith": return .bool(s.hasPrefix(try string(0)))
            case "endsWith": return .bool(s.hasSuffix(try string(0)))
            case "toLowerCase": return .string(s.lowercased())
            case "toUpperCase": return .string(s.uppercased())
            case "replace": return .string(s.replacingOccurrences(of: try string(0), with: try string(1)))
            case "matches":
                guard args.count == 1, case .regex(let pattern) = args[0] else {
                    throw fail("matches() takes a regular expression literal", location)
                }
                try RulesRegex.check(s, limits.maximumRegexInput, location)
                let regex = try RulesRegex.compile(pattern, location)
                do {
                    return .bool(try regex.firstMatch(in: s) != nil)
                } catch {
                    throw fail("regular expression failed", location)
                }
            default: throw fail("string has no method '\(name)'", location)
            }
        default:
            throw fail("\(receiver.typeName) has no method '\(name)'", location)
        }
    }
}
