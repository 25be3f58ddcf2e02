package import Foundation
package import HearthCore
import Synchronization

/// A ledger in this process's memory: for an engine only one process serves (SQLite's), whose open transactions end
/// with it anyway.
package final class MemoryTransactionLedger<Connection>: TransactionLedger {
    private struct Stored {
        var entry: TransactionEntry<Connection>
        var reads = TransactionReadSet()
    }

    private let entries = Mutex<[TransactionID: Stored]>([:])

    package init() {}

    package func counts(caller: String?) -> TransactionCounts {
        entries.withLock { entries in
            var counts = TransactionCounts()
            for stored in entries.values {
                let entry = stored.entry
                if entry.isReadOnly { counts.readOnly += 1 }
                guard let caller, entry.caller == caller else { continue }
                counts.caller += 1
                if entry.isReadOnly { counts.callerReadOnly += 1 }
            }
            return counts
        }
    }

    package func insert(_ entry: TransactionEntry<Connection>, id: TransactionID) {
        entries.withLock { $0[id] = Stored(entry: entry) }
    }

    package func use(
        _ id: TransactionID, at time: Date, isExpired: (TransactionEntry<Connection>) -> Bool
    ) -> TransactionUse<Connection> {
        entries.withLock { entries in
            guard var stored = entries[id] else { return .unknown }
            guard !isExpired(stored.entry) else {
                entries[id] = nil
                return .expired(stored.entry)
            }
            stored.entry.lastUsed = time
            entries[id] = stored
            return .alive(stored.entry)
        }
    }

    package func entry(_ id: TransactionID) -> TransactionEntry<Connection>? {
        entries.withLock { $0[id]?.entry }
    }

    package func record(_ id: TransactionID, documents: [(ResourcePath, Timestamp?)]) {
        entries.withLock { entries in
            guard var stored = entries[id], !stored.entry.isReadOnly else { return }
            for (path, updateTime) in documents where stored.reads.documents[path] == nil {
                stored.reads.documents[path] = .some(updateTime)
            }
            entries[id] = stored
        }
    }

    package func record(_ id: TransactionID, query: StructuredQuery, results: [ResourcePath: Timestamp]) {
        entries.withLock { entries in
            guard var stored = entries[id], !stored.entry.isReadOnly else { return }
            stored.reads.queries.append((query, results))
            entries[id] = stored
        }
    }

    package func remove(
        _ id: TransactionID
    ) -> (entry: TransactionEntry<Connection>, reads: TransactionReadSet?)? {
        guard let stored = entries.withLock({ $0.removeValue(forKey: id) }) else { return nil }
        return (stored.entry, stored.entry.isReadOnly ? nil : stored.reads)
    }

    package func removeExpired(idleSince: Date, snapshotsBornBefore: Date) -> [TransactionEntry<Connection>] {
        entries.withLock { entries in
            let ids = entries.filter { _, stored in
                stored.entry.lastUsed < idleSince
                    || (stored.entry.isReadOnly && stored.entry.created < snapshotsBornBefore)
            }.map(\.key)
            return ids.compactMap { entries.removeValue(forKey: $0)?.entry }
        }
    }

    package func removeAll() -> [TransactionEntry<Connection>] {
        entries.withLock { entries in
            defer { entries.removeAll() }
            return entries.values.map(\.entry)
        }
    }
}
