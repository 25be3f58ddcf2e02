internal import HearthCore

/// Rules over a field a list query constrains without pinning it (``RulesValue/constrained(_:)``): an operation is
/// true or false only when it is so for every value the constraint admits; otherwise it is an error, which denies
/// unless the rest of the condition decides without it (`unknown || true` is true), as a query must be proven by
/// its constraints alone.
enum QueryProof {
    static func unproven(_ location: SourceLocation) -> EvaluationError {
        EvaluationError(
            message: "the query's filters do not prove this for every document it can return (rules are not filters)",
            location: location)
    }

    /// `constrained op other`, or `other op constrained` when `flipped`.
    static func apply(
        _ op: Expression.BinaryOperator, _ constraint: RulesFieldConstraint, _ other: RulesValue, flipped: Bool,
        _ location: SourceLocation
    ) throws(EvaluationError) -> RulesValue {
        if case .constrained = other { throw unproven(location) }
        let decided: Bool?
        switch (op, flipped) {
        case (.equal, _): decided = try outside(constraint, other, location) ? false : nil
        case (.notEqual, _): decided = try outside(constraint, other, location) ? true : nil
        case (.greater, false), (.less, true):
            decided = try order(constraint, other, strict: true, above: true, location)
        case (.greaterOrEqual, false), (.lessOrEqual, true):
            decided = try order(constraint, other, strict: false, above: true, location)
        case (.less, false), (.greater, true):
            decided = try order(constraint, other, strict: true, above: false, location)
        case (.lessOrEqual, false), (.greaterOrEqual, true):
            decided = try order(constraint, other, strict: false, above: false, location)
        case (.in, true):
            // `x in field` where the field is a list holding each of `contains`.
            decided = constraint.contains.contains { RulesValue.equal(RulesValue($0), other) } ? true : nil
        default:
            decided = nil
        }
        guard let decided else { throw unproven(location) }
        return .bool(decided)
    }

    /// Whether every admitted value is above (or below) `x`: `true` when all are, `false` when none is, `nil` when
    /// the constraint does not tell. `strict` asks for `>` (or `<`) rather than `>=` (`<=`).
    private static func order(
        _ constraint: RulesFieldConstraint, _ x: RulesValue, strict: Bool, above: Bool, _ location: SourceLocation
    ) throws(EvaluationError) -> Bool? {
        // The bound on the asked side proves it; the bound on the other side disproves it.
        let near = above ? constraint.lower : constraint.upper
        let far = above ? constraint.upper : constraint.lower
        if let near {
            // The sign of (bound - x), turned so that positive means "on the asked side of x".
            let side = try compare(near.value, x, location) * (above ? 1 : -1)
            if side > 0 || (side == 0 && (!strict || !near.inclusive)) { return true }
        }
        if let far {
            let side = try compare(far.value, x, location) * (above ? 1 : -1)
            if side < 0 || (side == 0 && (strict || !far.inclusive)) { return false }
        }
        return nil
    }

    /// Whether `x` is certainly not an admitted value: excluded, outside the range, or of another type than the
    /// range's (a range filter only returns values of its bound's type).
    private static func outside(
        _ constraint: RulesFieldConstraint, _ x: RulesValue, _ location: SourceLocation
    ) throws(EvaluationError) -> Bool {
        if constraint.excluded.contains(where: { RulesValue.equal(RulesValue($0), x) }) { return true }
        for (bound, isLower) in [(constraint.lower, true), (constraint.upper, false)] {
            guard let bound else { continue }
            let side: Int
            do {
                side = try compare(bound.value, x, location)
            } catch {
                return true
            }
            if isLower ? (side > 0 || (side == 0 && !bound.inclusive)) : (side < 0 || (side == 0 && !bound.inclusive)) {
                return true
            }
        }
        return false
    }

    /// -1, 0 or 1 for a bound against a rules value; an error across types or with NaN.
    private static func compare(
        _ bound: Value, _ x: RulesValue, _ location: SourceLocation
    ) throws(EvaluationError) -> Int {
        let order = try RulesOperators.compare(RulesValue(bound), x, .less, location)
        guard order != 2 else { throw unproven(location) }
        return order
    }

    /// `constrained is type`: decided when the constraint fixes the type (a range's bound, a list membership).
    static func isType(
        _ constraint: RulesFieldConstraint, _ type: String, _ location: SourceLocation
    ) throws(EvaluationError) -> Bool {
        if !constraint.contains.isEmpty { return type == "list" }
        guard let bound = constraint.lower ?? constraint.upper else { throw unproven(location) }
        let value = RulesValue(bound.value)
        switch value {
        case .int, .float:
            if type == "number" { return true }
            if type == "int" || type == "float" { throw unproven(location) }
            return false
        default:
            return RulesOperators.isType(value, type)
        }
    }

    /// A method on a constrained field: `hasAny`/`hasAll` of list memberships the query guarantees.
    static func method(
        _ constraint: RulesFieldConstraint, _ name: String, _ args: [RulesValue], _ location: SourceLocation
    ) throws(EvaluationError) -> RulesValue {
        guard args.count == 1, !constraint.contains.isEmpty else { throw unproven(location) }
        let wanted: [RulesValue]
        switch args[0].materialized {
        case .list(let elements), .set(let elements): wanted = elements
        default: throw unproven(location)
        }
        let held = constraint.contains.map(RulesValue.init)
        func isHeld(_ value: RulesValue) -> Bool { held.contains { RulesValue.equal($0, value) } }
        switch name {
        case "hasAny" where wanted.contains(where: isHeld): return .bool(true)
        case "hasAll" where wanted.allSatisfy(isHeld): return .bool(true)
        default: throw unproven(location)
        }
    }
}
