import HearthCore
import HearthRules
import Testing

/// Rules are not filters: a list is allowed only when its filters prove the rule for every document it can return —
/// ranges, exclusions and array memberships as well as equalities.
@Suite struct QueryProofTests {
    static func field(_ name: String) -> FieldPath { FieldPath(segments: name.split(separator: ".").map(String.init)) }

    static func filter(_ name: String, _ op: FieldOperator, _ value: Value) -> QueryFilter {
        .field(field(name), op, value)
    }

    /// Whether a list of `items` whose query has `filter` is allowed when `condition` guards list.
    static func allows(_ condition: String, _ filter: QueryFilter?) throws -> Bool {
        let rules = try Fixture.rules(condition, methods: "list")
        return RulesQueryConstraints.branches(of: filter).allSatisfy { constraints in
            rules.authorize(
                FirestoreRequest(
                    method: .list, path: ResourcePath(segments: ["items"]), auth: Fixture.alice, time: Fixture.now,
                    queryConstraints: constraints)
            ).isAllowed
        }
    }

    @Test("a range proves a comparison only when every value it admits satisfies it")
    func ranges() throws {
        let rule = "resource.data.n > 5"
        #expect(try Self.allows(rule, Self.filter("n", .greaterThan, .integer(10))))
        #expect(try Self.allows(rule, Self.filter("n", .greaterThan, .integer(5))))
        #expect(try Self.allows(rule, Self.filter("n", .greaterThanOrEqual, .double(5.5))))
        #expect(try !Self.allows(rule, Self.filter("n", .greaterThanOrEqual, .integer(5))))
        #expect(try !Self.allows(rule, Self.filter("n", .greaterThan, .integer(2))))
        #expect(try !Self.allows(rule, Self.filter("n", .lessThan, .integer(3))))
        #expect(try !Self.allows(rule, nil))
        #expect(try Self.allows(rule, Self.filter("n", .equal, .integer(7))))

        let between = "resource.data.n >= 10 && resource.data.n < 100"
        let inside = QueryFilter.and([
            Self.filter("n", .greaterThan, .integer(10)), Self.filter("n", .lessThanOrEqual, .integer(50)),
        ])
        #expect(try Self.allows(between, inside))
        #expect(try !Self.allows(between, Self.filter("n", .greaterThan, .integer(10))))
        let tooHigh = QueryFilter.and([
            Self.filter("n", .greaterThan, .integer(10)), Self.filter("n", .lessThanOrEqual, .integer(100)),
        ])
        #expect(try !Self.allows(between, tooHigh))
        // Two lower bounds: the tighter one counts.
        let doubled = QueryFilter.and([
            Self.filter("n", .greaterThan, .integer(1)), Self.filter("n", .greaterThanOrEqual, .integer(20)),
        ])
        #expect(try Self.allows("20 <= resource.data.n", doubled))
        // Strings and timestamps order too; a range of one type never compares with another.
        #expect(try Self.allows("resource.data.name >= 'm'", Self.filter("name", .greaterThan, .string("q"))))
        #expect(try !Self.allows("resource.data.name >= 'm'", Self.filter("name", .greaterThan, .string("a"))))
        #expect(try !Self.allows("resource.data.n > 5", Self.filter("n", .greaterThan, .string("x"))))
        #expect(
            try Self.allows(
                "resource.data.at < timestamp.value(2000000000000)",
                Self.filter("at", .lessThan, .timestamp(Timestamp(seconds: 1_000, nanos: 0)))))
    }

    @Test("equality and inequality against a range, exclusions and types")
    func equalities() throws {
        #expect(
            try Self.allows("resource.data.status != 'deleted'", Self.filter("status", .notEqual, .string("deleted"))))
        #expect(
            try Self.allows(
                "resource.data.status != 'spam'",
                Self.filter("status", .notIn, .array([.string("deleted"), .string("spam")]))))
        #expect(try !Self.allows("resource.data.status != 'deleted'", Self.filter("status", .notEqual, .string("x"))))
        #expect(try !Self.allows("resource.data.status != 'deleted'", nil))
        // A range excludes the values outside it, and every value of another type.
        #expect(try Self.allows("resource.data.n != 3", Self.filter("n", .greaterThan, .integer(3))))
        #expect(try Self.allows("resource.data.n != 'three'", Self.filter("n", .greaterThan, .integer(3))))
        #expect(try !Self.allows("resource.data.n != 4", Self.filter("n", .greaterThan, .integer(3))))
        #expect(try !Self.allows("resource.data.n == 4", Self.filter("n", .greaterThan, .integer(3))))
        #expect(try Self.allows("resource.data.n is number", Self.filter("n", .greaterThan, .integer(3))))
        #expect(try !Self.allows("resource.data.n is string", Self.filter("n", .greaterThan, .integer(3))))
        #expect(try !Self.allows("resource.data.n is int", Self.filter("n", .greaterThan, .integer(3))))
        #expect(try Self.allows("resource.data.n != null", .unary(Self.field("n"), .isNotNull)))
    }

    @Test("array-contains proves membership; array-contains-any and in are judged value by value")
    func arrays() throws {
        let member = "request.auth.uid in resource.data.members"
        #expect(try Self.allows(member, Self.filter("members", .arrayContains, .string("alice"))))
        #expect(try !Self.allows(member, Self.filter("members", .arrayContains, .string("bob"))))
        #expect(try !Self.allows(member, nil))
        #expect(
            try Self.allows(
                "resource.data.members.hasAny(['alice', 'x'])", Self.filter("members", .arrayContains, .string("alice"))
            ))
        #expect(
            try !Self.allows(
                "resource.data.members.hasAll(['alice', 'x'])", Self.filter("members", .arrayContains, .string("alice"))
            ))
        #expect(
            try !Self.allows(
                "resource.data.members.size() > 0", Self.filter("members", .arrayContains, .string("alice"))))
        let any = Self.filter("members", .arrayContainsAny, .array([.string("alice"), .string("bob")]))
        #expect(try !Self.allows(member, any))
        #expect(try Self.allows("resource.data.members.hasAny(['alice', 'bob'])", any))
        let values = Self.filter("owner", .in, .array([.string("alice"), .string("bob")]))
        #expect(try Self.allows("resource.data.owner in ['alice', 'bob', 'carol']", values))
        #expect(try !Self.allows("resource.data.owner == 'alice'", values))
    }

    @Test("OR branches are judged each; nested fields; what the query does not say proves nothing")
    func branchesAndUnknowns() throws {
        let either = QueryFilter.or([
            Self.filter("n", .greaterThan, .integer(10)), Self.filter("n", .equal, .integer(7)),
        ])
        #expect(try Self.allows("resource.data.n > 5", either))
        let wider = QueryFilter.or([
            Self.filter("n", .greaterThan, .integer(10)), Self.filter("n", .equal, .integer(3)),
        ])
        #expect(try !Self.allows("resource.data.n > 5", wider))
        #expect(
            try Self.allows("resource.data.stats.score >= 50", Self.filter("stats.score", .greaterThan, .integer(60))))
        let mixed = QueryFilter.and([
            Self.filter("owner", .equal, .string("alice")),
            Self.filter("profile.age", .greaterThanOrEqual, .integer(18)),
        ])
        #expect(try Self.allows("resource.data.owner == request.auth.uid && resource.data.profile.age >= 18", mixed))
        // Known false on one side decides; an unproven side alone does not.
        #expect(try Self.allows("resource.data.n < 100 || resource.data.owner == 'alice'", mixed))
        #expect(try !Self.allows("resource.data.n < 100 && resource.data.owner == 'alice'", mixed))
        // Whole-map operations on a query's partial view of the data prove nothing.
        #expect(try !Self.allows("resource.data.keys().hasOnly(['owner', 'profile'])", mixed))
        #expect(try !Self.allows("resource.data.size() == 2", mixed))
        #expect(try !Self.allows("resource.data.n > resource.data.m", Self.filter("n", .greaterThan, .integer(1))))
        #expect(try !Self.allows("resource.data.n + 1 > 5", Self.filter("n", .greaterThan, .integer(10))))
    }
}
