import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite

/// A store in a fresh temporary directory, removed when the test ends.
final class TemporaryStore {
    let directory: String
    private(set) var store: SQLiteDocumentStore

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-store-\(UUID().uuidString)").path
        store = try SQLiteDocumentStore(configuration: .init(directory: directory))
    }

    /// Closes and reopens the same directory.
    func reopen() throws {
        store.close()
        store = try SQLiteDocumentStore(configuration: .init(directory: directory))
    }

    deinit {
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

extension DocumentStore {
    /// Commits and waits for the outcome.
    func commit(_ writes: [Write]) async -> Result<CommitResult, HearthError> {
        await withCheckedContinuation { continuation in
            commit(writes, in: DatabaseName(project: "test")) { continuation.resume(returning: $0) }
        }
    }

    /// Commits and returns the result, failing the test on error.
    @discardableResult
    func commitOrThrow(_ writes: [Write]) async throws -> CommitResult {
        try await commit(writes).get()
    }
}

func path(_ text: String) -> ResourcePath { ResourcePath(segments: text.split(separator: "/").map(String.init)) }

func set(_ text: String, _ fields: [String: Value]) -> Write {
    Write(path: path(text), operation: .update(fields: fields, mask: nil))
}
