import Foundation
import Synchronization

/// A response body read from an open file by libmicrohttpd (with `sendfile` where it can), so the bytes never pass
/// through the server's memory whatever the file's size.
///
/// The body owns its descriptor: the server hands it to libmicrohttpd, which closes it once the response is sent;
/// a body that is never sent (a deferred reply whose client went away) closes it when released.
public final class HTTPFileBody: Sendable {
    /// The first byte sent.
    public let offset: UInt64
    /// How many bytes are sent; the response's `Content-Length`.
    public let length: UInt64
    private let descriptor: Mutex<Int32>

    /// A body of `length` bytes of the open file `descriptor`, starting at `offset`; takes ownership of the
    /// descriptor.
    public init(descriptor: Int32, offset: UInt64 = 0, length: UInt64) {
        self.offset = offset
        self.length = length
        self.descriptor = Mutex(descriptor)
    }

    deinit {
        let fd = descriptor.withLock { $0 }
        if fd >= 0 { close(fd) }
    }

    /// The descriptor, handed over once; `nil` after the first call.
    func take() -> Int32? {
        descriptor.withLock { fd in
            defer { fd = -1 }
            return fd >= 0 ? fd : nil
        }
    }
}
