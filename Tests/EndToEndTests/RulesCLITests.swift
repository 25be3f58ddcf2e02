import Foundation
import HearthTesting
import Testing

/// `hearth rules test` on storage rules: the binary runs a storage rules file's cases (`service firebase.storage`),
/// as it runs Firestore and Realtime Database ones.
@Suite("hearth rules test: storage rules")
struct RulesCLITests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/rules")

    @Test("the examples' storage rules pass their cases; exit 0 and a count")
    func examplePasses() async throws {
        let rules = Self.examples.appendingPathComponent("storage.rules").path
        let tests = Self.examples.appendingPathComponent("storage.tests.json").path
        let run = try await runHearth(["rules", "test", rules, tests])
        #expect(run.termination == .exit(0), "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("12 passed, 0 failed"), "\(run.stdout)")
        let check = try await runHearth(["rules", "check", rules])
        #expect(check.termination == .exit(0) && check.stdout.contains("OK"), "\(check.stderr)")
    }

    @Test("a failing storage case exits 1 and names the rule line that decided it")
    func failingCase() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rules-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tests = directory.appendingPathComponent("wrong.json")
        try Data(
            #"""
            [{"name": "bob writes ann's avatar", "auth": "bob", "method": "create", "path": "users/ann/avatar",
              "data": {"size": 10, "contentType": "image/png"}, "expect": "allow"}]
            """#.utf8
        ).write(to: tests)
        let rules = Self.examples.appendingPathComponent("storage.rules").path
        let run = try await runHearth(["rules", "test", rules, tests.path])
        #expect(run.termination == .exit(1))
        #expect(run.stdout.contains("FAIL bob writes ann's avatar: expected allow, got deny"), "\(run.stdout)")
        #expect(run.stdout.contains("0 passed, 1 failed"), "\(run.stdout)")
    }
}
