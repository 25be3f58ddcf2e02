import Synchronization

/// Development mode only: the codes issued and not yet used, in plain text, for
/// `GET /emulator/v1/projects/{p}/oobCodes`. The database holds only hashes, so this list is the one place a code
/// can be read back; it lives in memory and never exists outside `--dev`.
final class DevOobLog: Sendable {
    private let entries = Mutex<[(hash: [UInt8], entry: OobCodeEntry)]>([])
    private let capacity = 1000

    func record(_ entry: OobCodeEntry, hash: [UInt8]) {
        entries.withLock { entries in
            entries.append((hash, entry))
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
    }

    func remove(hash: [UInt8]) {
        entries.withLock { $0.removeAll { $0.hash == hash } }
    }

    func removeAll() {
        entries.withLock { $0.removeAll() }
    }

    var list: [OobCodeEntry] { entries.withLock { $0.map(\.entry) } }
}
