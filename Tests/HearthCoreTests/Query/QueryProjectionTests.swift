import Testing

@testable import HearthCore

@Suite struct QueryProjectionTests {
    typealias F = QueryFixture

    static let document: [String: Value] = [
        "a": .integer(1), "b": .map(["c": .string("x"), "d": .map(["e": .null])]), "f": .array([.integer(1)]),
        "g.h": .boolean(true),
    ]

    static let cases: [([String], [String: Value])] = [
        ([], [:]),
        (["__name__"], [:]),
        (["a"], ["a": .integer(1)]),
        (["a", "f"], ["a": .integer(1), "f": .array([.integer(1)])]),
        (["b.c"], ["b": .map(["c": .string("x")])]),
        (["b.d.e"], ["b": .map(["d": .map(["e": .null])])]),
        (["b.c", "b.d.e"], ["b": .map(["c": .string("x"), "d": .map(["e": .null])])]),
        (["b", "b.c"], ["b": document["b"]!]),
        (["b.c", "b"], ["b": document["b"]!]),
        (["missing", "a.x", "f.`0`"], [:]),
        (["`g.h`"], ["g.h": .boolean(true)]),
        (["g.h"], [:]),
    ]

    @Test(arguments: cases)
    func projects(_ row: ([String], [String: Value])) {
        #expect(Self.document.projected(onto: row.0.map(F.field)) == row.1)
    }
}
