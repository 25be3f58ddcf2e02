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
