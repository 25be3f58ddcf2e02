import Foundation
import Synchronization

/// Space held back on the data directory's disk, so that deletes still work once it is full.
///
/// In write-ahead-log mode even a delete writes: its pages are appended to the log before they are freed, and on a
/// full disk that append fails (`SQLITE_FULL`), so nothing could be deleted to make room. The reserve is a file of
/// `bytes` allocated in advance; a delete the disk refused gives it up and is tried again in the space it freed.
/// While it is given up, writes other than deletes are refused (`isReleased`), so the freed space goes to deletes,
/// until the disk has room for the reserve again and it is put back (`replenish`).
public final class DiskReserve: Sendable {
    /// The reserve file.
    public let path: String
    /// Its size.
    public let bytes: Int
    private let state = Mutex(State())

    private struct State {
        var released = false
        var lastReplenish = ContinuousClock.now - .seconds(60)
    }

    private static let byPath = Mutex<[String: DiskReserve]>([:])

    /// The process's one reserve at `path`: the stores of one data directory (documents, files) share it, so a
    /// delete in either may give it up and both then keep the freed room for deletes.
    public static func shared(path: String, bytes: Int) -> DiskReserve {
        byPath.withLock { reserves in
            if let reserve = reserves[path] { return reserve }
            let reserve = DiskReserve(path: path, bytes: bytes)
            reserves[path] = reserve
            return reserve
        }
    }

    /// A reserve at `path` of `bytes`; allocated at once when the disk has room for it.
    public init(path: String, bytes: Int) {
        self.path = path
        self.bytes = bytes
        if !FileManager.default.fileExists(atPath: path) { _ = allocate() }
    }

    /// Whether the reserve was given up for deletes and is not back yet: the disk is full, and writes other than
    /// deletes are to be refused. Asking at most once a second also tries to put the reserve back.
    public var isReleased: Bool {
        let due = state.withLock { state -> Bool in
            guard state.released, ContinuousClock.now - state.lastReplenish >= .seconds(1) else { return false }
            state.lastReplenish = ContinuousClock.now
            return true
        }
        if due { replenish() }
        return state.withLock { $0.released }
    }

    /// Gives the reserve up so a refused delete can be retried; `true` when that freed space (or it was already
    /// given up, and the retry may still find room).
    public func release() -> Bool {
        state.withLock { state in
            state.released = true
            state.lastReplenish = ContinuousClock.now
        }
        return unlink(path) == 0 || errno == ENOENT
    }

    /// Puts the reserve back when the disk has room for it and as much again; ends `isReleased` when it does.
    public func replenish() {
        guard freeBytes() >= 2 * bytes, allocate() else { return }
        state.withLock { $0.released = false }
    }

    /// Whether `error` is the disk refusing a write: `SQLITE_FULL`, or `SQLITE_IOERR` as a file-size limit
    /// (`EFBIG`) reports itself.
    public static func isDiskFull(_ error: any Error) -> Bool {
        guard let error = error as? SQLiteError else { return false }
        return error.code & 0xFF == 13 || error.code & 0xFF == 10
    }

    /// Allocates the file under a temporary name and renames it into place, so a reserve is whole or absent.
    private func allocate() -> Bool {
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        let allocated = posix_fallocate(descriptor, 0, off_t(bytes)) == 0
        close(descriptor)
        guard allocated, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    private func freeBytes() -> Int {
        var stats = statvfs()
        let directory = (path as NSString).deletingLastPathComponent
        guard statvfs(directory.isEmpty ? "." : directory, &stats) == 0 else { return 0 }
        return Int(stats.f_bavail) * Int(stats.f_frsize)
    }
}
