import Foundation
import Testing

@testable import Hearth

/// The SDK's local store goes through HearthSQLite and reports what fails instead of reading it as an empty answer.
@Suite struct LocalSQLiteTests {
    @Test func aFileThatIsNotADatabaseIsReportedAndReplacedInMemory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("local-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("broken.sqlite")
        try Data("this is not a database".utf8).write(to: url)
        let sqlite = LocalSQLite(url: url)
        #expect(sqlite.failures.contains { $0.contains("not a database") }, "\(sqlite.failures)")
        // It still works, in memory.
        sqlite.execute("CREATE TABLE t (v TEXT)")
        #expect(try sqlite.insert("INSERT INTO t (v) VALUES (?)", bindings: [.text("kept")]) == 1)
        var values: [String?] = []
        #expect(sqlite.run("SELECT v FROM t", []) { values.append($0.text(0)) })
        #expect(values == ["kept"])
    }

    @Test func aFailedStatementIsReportedAndAToleratedOneIsNot() {
        let sqlite = LocalSQLite(url: nil)
        sqlite.execute("CREATE TABLE t (v TEXT)")
        sqlite.execute("ALTER TABLE t ADD COLUMN w TEXT")
        sqlite.execute("ALTER TABLE t ADD COLUMN w TEXT", tolerating: "duplicate column")
        #expect(sqlite.failures.isEmpty, "\(sqlite.failures)")
        #expect(!sqlite.run("SELECT nope FROM t", []))
        #expect(sqlite.failures.count == 1)
        #expect(sqlite.failures.first?.contains("nope") == true, "\(sqlite.failures)")
        #expect(throws: FirestoreErrorCode.self) { try sqlite.insert("INSERT INTO missing VALUES (1)", bindings: []) }
    }
}
