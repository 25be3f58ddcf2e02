import Testing

@testable import HearthCore

@Suite struct PathTests {
    @Test(arguments: [
        ("a", ["a"]), ("a.b", ["a", "b"]), ("`a.b`.c", ["a.b", "c"]), ("`x\\`y`", ["x`y"]), ("_x1", ["_x1"]),
        ("`1a`", ["1a"]), ("`a b`", ["a b"]), ("`ü`", ["ü"]),
    ])
    func parsesFieldPaths(_ text: String, _ segments: [String]) throws {
        let path = try FieldPath(parsing: text)
        #expect(path.segments == segments)
        #expect(try FieldPath(parsing: path.description) == path)
    }

    @Test(arguments: ["", ".", "a.", ".a", "a..b", "`a", "a`b`", "1a", "a b", "a-b", "``", "`a`b"])
    func rejectsInvalidFieldPaths(_ text: String) {
        #expect(throws: HearthError.self) { try FieldPath(parsing: text) }
    }

    @Test(arguments: ["a//b", "a/__x__", "a/.", "a/..", "/a"])
    func rejectsInvalidResourcePaths(_ text: String) {
        #expect(throws: HearthError.self) { try ResourcePath(validating: text) }
    }

    @Test func rejectsOverlongIDs() {
        #expect(throws: HearthError.self) { try ResourcePath(validating: "c/" + String(repeating: "x", count: 1501)) }
        #expect(throws: Never.self) { try ResourcePath(validating: "c/" + String(repeating: "x", count: 1500)) }
    }

    @Test func resolvesDocumentNames() throws {
        let database = DatabaseName(project: "demo")
        let path = try database.path(fromName: "projects/demo/databases/(default)/documents/users/alice")
        #expect(path.segments == ["users", "alice"])
        #expect(path.isDocument)
        #expect(database.name(of: path) == "projects/demo/databases/(default)/documents/users/alice")
        #expect(throws: HearthError.self) {
            try database.path(fromName: "projects/other/databases/(default)/documents/a/b")
        }
    }

    @Test func setsAndRemovesNestedFields() {
        var fields: [String: Value] = ["a": .integer(1)]
        fields.setValue(.string("x"), at: FieldPath(segments: ["a", "b"]))
        #expect(fields == ["a": .map(["b": .string("x")])])
        fields.setValue(.null, at: FieldPath(segments: ["a", "c"]))
        fields.removeValue(at: FieldPath(segments: ["a", "b"]))
        #expect(fields == ["a": .map(["c": .null])])
        #expect(fields.value(at: FieldPath(segments: ["a", "c"])) == .null)
        #expect(fields.value(at: FieldPath(segments: ["a", "c", "d"])) == nil)
    }
}
