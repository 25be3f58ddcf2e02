/// Variables in scope during evaluation: globals (`request`, `resource`, wildcards), then parameters and `let`s.
///
/// A small array searched from the end: scopes hold a handful of names, and inner names shadow outer ones.
struct Environment {
    var bindings: [(String, RulesValue)] = []

    mutating func bind(_ name: String, _ value: RulesValue) { bindings.append((name, value)) }

    func lookup(_ name: String) -> RulesValue? {
        var i = bindings.count - 1
        while i >= 0 {
            if bindings[i].0 == name { return bindings[i].1 }
            i -= 1
        }
        return nil
    }
}
