import Testing

@testable import HearthCore

@Suite struct TreeKeyTests {
    @Test(arguments: ["a", "a b", "ü", "-Nx_1", "0", String(repeating: "k", count: 768), "🙂"])
    func acceptsValidKeys(_ key: String) {
        #expect(TreeKey.problem(with: key) == nil)
    }

    @Test(arguments: [
        "", "a.b", "a$", "#", "[x", "x]", "a/b", "tab\t", "nul\u{0}", "del\u{7F}", String(repeating: "k", count: 769),
    ])
    func rejectsInvalidKeys(_ key: String) {
        #expect(TreeKey.problem(with: key) != nil)
    }

    @Test func countsKeyLengthInUTF8Bytes() {
        #expect(TreeKey.isValid(String(repeating: "é", count: 384)))
        #expect(!TreeKey.isValid(String(repeating: "é", count: 385)))
    }

    @Test(arguments: [
        ("0", Int32(0)), ("42", 42), ("-7", -7), ("007", 7), ("2147483647", Int32.max), ("-2147483648", Int32.min),
    ])
    func readsIntegerKeys(_ key: String, _ value: Int32) {
        #expect(TreeKey.integerValue(key) == value)
    }

    @Test(arguments: ["2147483648", "-2147483649", "1.5", "1e3", "-", "+1", "a1", "12345678901", " 1"])
    func treatsOtherKeysAsStrings(_ key: String) {
        #expect(TreeKey.integerValue(key) == nil)
    }

    @Test func ordersIntegerKeysFirstNumericallyThenStrings() {
        let keys = ["b", "10", "-3", "a", "2", "01", "1", "A", "Z9", "ä"]
        let sorted = keys.sorted { TreeKey.compare($0, $1) < 0 }
        #expect(sorted == ["-3", "1", "01", "2", "10", "A", "Z9", "a", "b", "ä"])
    }

    @Test func comparesStringsByUTF16CodeUnitsLikeJavaScript() {
        // U+FF5E (one UTF-16 unit) sorts after U+1F642 (a surrogate pair, 0xD83D…) in JavaScript, though not in UTF-8.
        #expect(TreeKey.compare("\u{FF5E}", "🙂") > 0)
        #expect(TreeKey.compare("ab", "abc") < 0)
        #expect(TreeKey.compare("x", "x") == 0)
    }

    @Test func parsesPathsIgnoringEmptySegments() throws {
        #expect(try TreePath(validating: "/a//b/") == TreePath(segments: ["a", "b"]))
        #expect(try TreePath(validating: "") == .root)
        #expect(try TreePath(validating: "/").description == "/")
        #expect(tp("/a/b").description == "/a/b")
        #expect(throws: HearthError.self) { try TreePath(validating: "/a/b.c") }
        let deep = (0..<33).map { "k\($0)" }.joined(separator: "/")
        #expect(throws: HearthError.self) { try TreePath(validating: deep) }
    }

    @Test func relatesPaths() {
        #expect(tp("/a").contains(tp("/a/b")))
        #expect(tp("/a").contains(tp("/a")))
        #expect(!tp("/a/b").contains(tp("/a")))
        #expect(!tp("/a").contains(tp("/ab")))
        #expect(tp("/a").relative(tp("/a/b/c")) == tp("/b/c"))
        #expect(tp("/a").relative(tp("/x")) == nil)
        #expect(TreePath.root.contains(tp("/x/y")))
    }
}
