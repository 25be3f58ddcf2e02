import Foundation
import HearthCore
import HearthStore
import HearthStoreConformance
import Testing

@testable import HearthStoreSQLite

/// A tree engine on a fresh temporary store.
final class TemporaryTree {
    let temporary: TemporaryStore
    let tree: SQLiteTreeStore

    init() throws {
        temporary = try TemporaryStore()
        tree = SQLiteTreeStore(store: temporary.store)
    }
}
