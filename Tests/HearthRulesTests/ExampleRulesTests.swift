import Foundation
import HearthRules
import Testing

/// The shipped example rules (`Examples/rules/`, `Examples/Todo/`) pass their own test files, and the runner reports
/// failures with the deciding rule's line.
@Suite("Example rules and the test runner")
struct ExampleRulesTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/rules")

    static func load(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    @Test(
        "example passes its tests",
        arguments: [
            ("todos.rules", "todos.tests.json", 19), ("chat.database.rules.json", "chat.tests.json", 21),
            ("storage.rules", "storage.tests.json", 12),
            // The Todo example keeps its rules beside it (Examples/Todo).
            ("../Todo/todo.rules", "../Todo/todo.tests.json", 8),
        ])
    func example(_ rules: String, _ tests: String, _ count: Int) throws {
        let file = try RulesFile(source: try Self.load(rules))
        let cases = try RulesTestCase.load(json: try Self.load(tests))
        #expect(cases.count == count)
        let results = RulesTestRunner.run(cases, against: file)
        let report = RulesTestRunner.report(results, rulesSource: file.source, rulesName: rules)
        let allPassed = results.allSatisfy { $0.passed }
        #expect(allPassed, "\(report)")
        #expect(report.hasSuffix("\(count) passed, 0 failed\n"))
    }

    @Test("a failing case names the rule line that decided it")
    func failureReport() throws {
        let file = try RulesFile(source: try Self.load("todos.rules"))
        let cases = try RulesTestCase.load(
            json: """
                [{"name": "wrong", "auth": "bob", "method": "get", "path": "todos/t1",
                  "resource": {"owner": "alice"}, "expect": "allow"}]
                """)
        let results = RulesTestRunner.run(cases, against: file)
        #expect(!results[0].passed)
        let report = RulesTestRunner.report(results, rulesSource: file.source, rulesName: "todos.rules")
        #expect(report.contains("FAIL wrong: expected allow, got deny"))
        #expect(report.contains("todos.rules:20:7: allow get, list:"))
        #expect(report.contains("0 passed, 1 failed"))
    }

    @Test("a list case is judged from its where filters, each branch of an in on its own")
    func whereFilters() throws {
        let file = try RulesFile(
            source: """
                rules_version = '2';
                service cloud.firestore {
                  match /databases/{database}/documents {
                    match /scores/{id} { allow list: if resource.data.points > 5 && resource.data.level in ['a', 'b']; }
                  }
                }
                """)
        let cases = try RulesTestCase.load(
            json: """
                [{"name": "proven", "method": "list", "path": "scores", "expect": "allow",
                  "where": [["points", ">", 10], ["level", "in", ["a", "b"]]]},
                 {"name": "range too wide", "method": "list", "path": "scores", "expect": "deny",
                  "where": [["points", ">", 2], ["level", "==", "a"]]},
                 {"name": "one branch fails", "method": "list", "path": "scores", "expect": "deny",
                  "where": [["points", ">=", 6], ["level", "in", ["a", "c"]]]},
                 {"name": "pinned through resource", "method": "list", "path": "scores", "expect": "allow",
                  "resource": {"level": "b"}, "where": [["points", ">", 5]]}]
                """)
        let results = RulesTestRunner.run(cases, against: file)
        let allPassed = results.allSatisfy { $0.passed }
        #expect(allPassed, "\(RulesTestRunner.report(results, rulesSource: file.source, rulesName: "x"))")
        #expect(throws: RulesTestError.self) {
            try RulesTestCase.load(
                json: #"[{"method": "list", "path": "s", "expect": "deny", "where": [["a", "~", 1]]}]"#)
        }
    }

    @Test("malformed test files are rejected", arguments: ["{}", "[1]", "[{\"method\": \"get\"}]", "not json"])
    func malformed(_ text: String) {
        #expect(throws: RulesTestError.self) { try RulesTestCase.load(json: text) }
    }

    @Test("the language is chosen from the first character")
    func detection() throws {
        if case .database = try RulesFile(source: "// c\n{\"rules\": {}}") {} else { Issue.record("expected database") }
        if case .firestore = try RulesFile(source: "service cloud.firestore {}") {
        } else {
            Issue.record("expected firestore")
        }
    }
}
