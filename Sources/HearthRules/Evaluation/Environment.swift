/// Variables in scope during evaluation: globals (`request`, `resource`, wildcards), then parameters and `let`s.
///
/// Small arrays searched from the end: scopes hold a handful of names, and inner names shadow outer ones. Names and
/// values are kept apart so a search compares names without copying a value out of each entry it passes (profiles
/// showed that copy costing more than the rest of a simple rule).
struct Environment {
    private var names: [String] = []
    private var values: [RulesValue] = []

    /// An empty scope.
    init() {}

    /// An empty scope with room for `capacity` names, so binding them allocates once.
    init(capacity: Int) {
        names.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
    }

    mutating func bind(_ name: String, _ value: RulesValue) {
        names.append(name)
        values.append(value)
    }

    func lookup(_ name: String) -> RulesValue? {
        guard let index = names.lastIndex(of: name) else { return nil }
        return values[index]
    }
}
