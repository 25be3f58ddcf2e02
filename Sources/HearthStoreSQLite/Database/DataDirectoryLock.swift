import Foundation
public import HearthCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock` on `DIR/hearth.lock`, held while a store has the data directory open.
///
/// A second server on the same data would write to the same SQLite file, but each keeps its own point-read cache
/// and change feed, blind to the other's writes: reads could go stale and listeners would miss changes. So the second
/// is refused at start. The kernel drops the lock when the process ends, however it ends (`kill -9` included), so a
/// crash never leaves the directory locked. Other commands that open the data (`hearth users`) do not take it.
/// A server on PostgreSQL takes it too: its data directory still holds its stored files and deployed rules, which
/// one server at a time writes.
public final class DataDirectoryLock: Sendable {
    /// The lock file's name in the data directory.
    static let fileName = "hearth.lock"

    private let descriptor: Mutex<Int32?>

    /// Takes the lock, or throws `FAILED_PRECONDITION` when another process holds it.
    public init(directory: String) throws(HearthError) {
        let path = (directory as NSString).appendingPathComponent(Self.fileName)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw .internal("Cannot open the lock file \(path): \(String(cString: strerror(errno))).")
        }
        guard Self.lock(fd) == 0 else {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK {
                throw .failedPrecondition(
                    "The data directory \(directory) is in use by another hearth server. Stop that server, or give "
                        + "this one a directory of its own with --data.")
            }
            throw .internal("Cannot lock \(path): \(String(cString: strerror(code))).")
        }
        descriptor = Mutex(fd)
    }

    /// `flock` without blocking, retried for up to 100 ms while it reports the lock taken. A process that spawns a
    /// child (a test starting a server, say) lends the child its descriptors until the child's `exec` closes them, and
    /// a lock released in that instant stays held by the child's copy for a moment; only a holder that stays is
    /// another server.
    private static func lock(_ fd: Int32) -> Int32 {
        for _ in 0..<10 {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return 0 }
            guard errno == EWOULDBLOCK else { return -1 }
            usleep(10_000)
        }
        return flock(fd, LOCK_EX | LOCK_NB)
    }

    /// Releases the lock; later calls do nothing.
    public func release() {
        guard let fd = descriptor.withLock({ $0.take() }) else { return }
        close(fd)
    }

    deinit { release() }
}
