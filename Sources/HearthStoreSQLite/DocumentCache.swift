import HearthCore
import HearthStore
import Synchronization

/// Recently read documents, so a point read of a hot document skips SQLite: every read transaction takes the
/// write-ahead-log index's locks (`fcntl` calls under a mutex all readers share), which cost more than the read.
///
/// An entry is always the latest committed version of its document. The writer removes the documents a group
/// writes before its `COMMIT` and ends the group after it (`beginGroup`/`endGroup`); a reader fills an entry only
/// if no group began or ended while it read, so a fill can never put back a version older than the last commit.
final class DocumentCache: Sendable {
    private struct State {
        var entries: [ResourcePath: StoredDocument] = [:]
        /// Paths in the order they were filled; the oldest is evicted first. A path may appear more than once.
        var order: [ResourcePath] = []
        var orderStart = 0
        var bytes = 0
        /// Incremented when a group begins and when it ends: odd while one is writing.
        var generation: UInt64 = 0
    }

    /// What a reader notes before reading SQLite, to hand back to `fill`.
    struct Ticket {
        fileprivate let generation: UInt64
    }

    /// The answer of `lookup`.
    enum Lookup {
        case hit(StoredDocument)
        /// Not cached: read SQLite, then `fill` with this ticket.
        case miss(Ticket)
    }

    private let state = Mutex(State())
    private let maxEntries: Int
    private let maxBytes: Int

    /// A cache holding at most `maxEntries` documents and about `maxBytes` bytes of their fields; zero of either
    /// disables it.
    init(maxEntries: Int, maxBytes: Int) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
    }

    private var isEnabled: Bool { maxEntries > 0 && maxBytes > 0 }

    /// The cached document, or a ticket for filling the entry after reading it from SQLite.
    func lookup(_ path: ResourcePath) -> Lookup? {
        guard isEnabled else { return nil }
        return state.withLock { state in
            if let document = state.entries[path] { return .hit(document) }
            return .miss(Ticket(generation: state.generation))
        }
    }

    /// Caches a document read from SQLite, unless a group began or ended since `ticket` was taken.
    func fill(_ document: StoredDocument, ticket: Ticket) {
        let size = Self.size(of: document)
        guard size <= maxBytes / 16 else { return }
        state.withLock { state in
            guard state.generation == ticket.generation, ticket.generation & 1 == 0 else { return }
            if let old = state.entries.updateValue(document, forKey: document.path) {
                state.bytes -= Self.size(of: old)
            } else {
                state.order.append(document.path)
            }
            state.bytes += size
            // The queue holds dead paths too (invalidated, then filled again); bounding it bounds memory under churn.
            while state.entries.count > maxEntries || state.bytes > maxBytes
                || state.order.count - state.orderStart > 2 * maxEntries
            {
                evictOldest(&state)
            }
        }
    }

    /// Called by the writer before `COMMIT`: drops the documents the group wrote and stops fills until `endGroup`.
    func beginGroup(writing paths: some Sequence<ResourcePath>) {
        guard isEnabled else { return }
        state.withLock { state in
            state.generation += 1
            for path in paths {
                if let old = state.entries.removeValue(forKey: path) { state.bytes -= Self.size(of: old) }
            }
        }
    }

    /// Called by the writer once `COMMIT` (or the rollback) is done.
    func endGroup() {
        guard isEnabled else { return }
        state.withLock { $0.generation += 1 }
    }

    private func evictOldest(_ state: inout State) {
        guard state.orderStart < state.order.count else {
            state.entries.removeAll()
            state.bytes = 0
            return
        }
        let path = state.order[state.orderStart]
        state.orderStart += 1
        if let old = state.entries.removeValue(forKey: path) { state.bytes -= Self.size(of: old) }
        // Compact the queue once its dead head is as long as the rest, so it stays within twice the entries.
        if state.orderStart > 64 && state.orderStart * 2 > state.order.count {
            state.order.removeFirst(state.orderStart)
            state.orderStart = 0
        }
    }

    /// An estimate of an entry's memory: its fields and path bytes plus a fixed overhead for the structures.
    private static func size(of document: StoredDocument) -> Int {
        document.fieldsJSON.count + document.path.segments.reduce(0) { $0 + $1.utf8.count } + 128
    }
}
