import Foundation
import HearthCore
import HearthStore
import HearthStoreSQLite

/// A store in a fresh temporary directory, removed when the test ends.
final class TemporaryStore {
    let directory: String
    private(set) var store: SQLiteDocumentStore

    private let configure: (inout SQLiteDocumentStore.Configuration) -> Void

    init(configure: @escaping (inout SQLiteDocumentStore.Configuration) -> Void = { _ in }) throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("hearth-store-\(UUID().uuidString)").path
        self.configure = configure
        var configuration = SQLiteDocumentStore.Configuration(directory: directory)
        configure(&configuration)
        store = try SQLiteDocumentStore(configuration: configuration)
    }

    /// Closes and reopens the same directory.
    func reopen() throws {
        store.close()
        var configuration = SQLiteDocumentStore.Configuration(directory: directory)
        configure(&configuration)
        store = try SQLiteDocumentStore(configuration: configuration)
    }

    deinit {
        store.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

extension DocumentCommitter {
    /// Commits and waits for the outcome.
    func commit(_ writes: [Write], transaction: TransactionID? = nil) async -> Result<CommitResult, HearthError> {
        await withCheckedContinuation { continuation in
            commit(writes, in: DatabaseName(project: "test"), transaction: transaction) {
                continuation.resume(returning: $0)
            }
        }
    }

    /// Commits and returns the result, failing the test on error.
    @discardableResult
    func commitOrThrow(_ writes: [Write], transaction: TransactionID? = nil) async throws -> CommitResult {
        try await commit(writes, transaction: transaction).get()
    }
}

func path(_ text: String) -> ResourcePath { ResourcePath(segments: text.split(separator: "/").map(String.init)) }

func set(_ text: String, _ fields: [String: Value]) -> Write {
    Write(path: path(text), operation: .update(fields: fields, mask: nil))
}
