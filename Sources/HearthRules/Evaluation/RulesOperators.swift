internal import HearthCore

/// Binary operators and `is` type checks.
enum RulesOperators {
    static func fail(_ message: String, _ location: SourceLocation) -> EvaluationError {
        EvaluationError(message: message, location: location)
    }

    static func apply(
        _ op: Expression.BinaryOperator, _ a: RulesValue, _ b: RulesValue, _ location: SourceLocation
    ) throws(EvaluationError) -> RulesValue {
        if case .constrained(let constraint) = a {
            return try QueryProof.apply(op, constraint, b, flipped: false, location)
        }
        if case .constrained(let constraint) = b {
            return try QueryProof.apply(op, constraint, a, flipped: true, location)
        }
        if a.isPartial || b.isPartial { throw QueryProof.unproven(location) }
        if case .object(let object) = b, op == .in {
            guard case .string(let key) = a else { return .bool(false) }
            return .bool(object.member(key) != nil)
        }
        switch op {
        case .equal: return .bool(RulesValue.equal(a, b))
        case .notEqual: return .bool(!RulesValue.equal(a, b))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let order = try compare(a, b, op, location)
            switch op {
            case .less: return .bool(order < 0)
            case .lessOrEqual: return .bool(order <= 0)
            case .greater: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        case .in:
            switch b {
            case .list(let elements), .set(let elements):
                return .bool(elements.contains { RulesValue.equal($0, a) })
            case .map(let fields):
                guard case .string(let key) = a else { return .bool(false) }
                return .bool(fields[key] != nil)
            default: throw fail("'in' needs a list, set or map on the right, got \(b.typeName)", location)
            }
        case .add, .subtract, .multiply, .divide, .remainder:
            return try arithmetic(op, a, b, location)
        case .and, .or:
            throw fail("internal: logical operator outside short-circuit evaluation", location)
        }
    }

    /// -1, 0 or 1; an error when the types cannot be ordered (rules do not order across types).
    static func compare(
        _ a: RulesValue, _ b: RulesValue, _ op: Expression.BinaryOperator, _ location: SourceLocation
    )
        throws(EvaluationError) -> Int
    {
        func sign<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : (x == y ? 0 : 1) }
        switch (a, b) {
        case (.int(let x), .int(let y)): return sign(x, y)
        case (.float(let x), .float(let y)):
            guard !x.isNaN && !y.isNaN else { return 2 }
            return sign(x, y)
        case (.int(let x), .float(let y)):
            guard !y.isNaN else { return 2 }
            return sign(Double(x), y)
        case (.float(let x), .int(let y)):
            guard !x.isNaN else { return 2 }
            return sign(x, Double(y))
        case (.string(let x), .string(let y)): return Value.compareBytes(x.utf8, y.utf8)
        case (.timestamp(let x), .timestamp(let y)): return sign(x, y)
        case (.duration(let x), .duration(let y)): return sign(x, y)
        case (.bytes(let x), .bytes(let y)): return Value.compareBytes(x, y)
        default:
            throw fail("operator \(op.rawValue) cannot compare \(a.typeName) and \(b.typeName)", location)
        }
    }

    static func arithmetic(
        _ op: Expression.BinaryOperator, _ a: RulesValue, _ b: RulesValue, _ location: SourceLocation
    ) throws(EvaluationError) -> RulesValue {
        switch (a, b) {
        case (.int(let x), .int(let y)):
            let result: (Int64, Bool)
            switch op {
            case .add: result = x.addingReportingOverflow(y)
            case .subtract: result = x.subtractingReportingOverflow(y)
            case .multiply: result = x.multipliedReportingOverflow(by: y)
            case .divide:
                guard y != 0 else { throw fail("division by zero", location) }
                result = x.dividedReportingOverflow(by: y)
            default:
                guard y != 0 else { throw fail("modulo by zero", location) }
                result = x.remainderReportingOverflow(dividingBy: y)
            }
            guard !result.1 else { throw fail("integer overflow", location) }
            return .int(result.0)
        case (.int, .float), (.float, .int), (.float, .float):
            let x = double(a)
            let y = double(b)
            switch op {
            case .add: return .float(x + y)
            case .subtract: return .float(x - y)
            case .multiply: return .float(x * y)
            case .divide: return .float(x / y)
            default: return .float(x.truncatingRemainder(dividingBy: y))
            }
        case (.string(let x), .string(let y)) where op == .add: return .string(x + y)
        case (.list(let x), .list(let y)) where op == .add: return .list(x + y)
        case (.timestamp(let t), .duration(let d)) where op == .add || op == .subtract:
            return try shift(t, op == .add ? d : -d, location)
        case (.duration(let d), .timestamp(let t)) where op == .add: return try shift(t, d, location)
        case (.timestamp(let x), .timestamp(let y)) where op == .subtract:
            let nanos = (x.seconds - y.seconds) * 1_000_000_000 + Int64(x.nanos - y.nanos)
            return .duration(nanos)
        case (.duration(let x), .duration(let y)) where op == .add || op == .subtract:
            let result = op == .add ? x.addingReportingOverflow(y) : x.subtractingReportingOverflow(y)
            guard !result.overflow else { throw fail("duration overflow", location) }
            return .duration(result.partialValue)
        default:
            throw fail("operator \(op.rawValue) does not apply to \(a.typeName) and \(b.typeName)", location)
        }
    }

    static func double(_ v: RulesValue) -> Double {
        switch v {
        case .int(let i): Double(i)
        case .float(let d): d
        default: .nan
        }
    }

    static func shift(_ t: Timestamp, _ nanos: Int64, _ location: SourceLocation) throws(EvaluationError) -> RulesValue
    {
        var seconds = t.seconds + nanos / 1_000_000_000
        var rest = Int64(t.nanos) + nanos % 1_000_000_000
        if rest < 0 {
            rest += 1_000_000_000
            seconds -= 1
        } else if rest >= 1_000_000_000 {
            rest -= 1_000_000_000
            seconds += 1
        }
        let result = Timestamp(seconds: seconds, nanos: Int32(rest))
        guard result.isValid else { throw fail("timestamp out of range", location) }
        return .timestamp(result)
    }

    static func isType(_ value: RulesValue, _ type: String) -> Bool {
        switch (type, value) {
        case ("bool", .bool), ("int", .int), ("float", .float), ("number", .int), ("number", .float),
            ("string", .string), ("bytes", .bytes), ("timestamp", .timestamp), ("duration", .duration),
            ("path", .path), ("latlng", .latlng), ("list", .list), ("map", .map), ("set", .set),
            ("map_diff", .mapDiff), ("null", .null), ("map", .object):
            return true
        default:
            return false
        }
    }
}
