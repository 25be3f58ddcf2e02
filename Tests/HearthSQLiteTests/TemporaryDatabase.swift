import Foundation

/// Runs `body` with a database path inside a fresh temporary directory, removed afterwards with its WAL files.
@discardableResult
func withTemporaryDatabase<R>(_ body: (String) throws -> R) throws -> R {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("hearth-sqlite-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory.appendingPathComponent("test.sqlite").path)
}

/// A failure the tests throw on purpose, to tell it apart from SQLite's own errors.
struct ExpectedFailure: Error, Equatable {}
