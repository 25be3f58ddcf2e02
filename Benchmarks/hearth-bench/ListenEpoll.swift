#if os(Linux)
import Glibc

/// epoll, reached through `dlsym` because Glibc's Swift module does not export `sys/epoll.h`. The load client needs
/// it: with poll(2), every wake-up scans all of a thread's descriptors, and at 10,000 streams that scanning competes
/// with the server for the same cores.
struct Epoll {
    private typealias Create = @convention(c) (Int32) -> Int32
    private typealias Control = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
    private typealias Wait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32

    private let create: Create
    private let control: Control
    private let wait: Wait
    let descriptor: Int32

    /// `struct epoll_event` is packed on x86-64 (12 bytes, data at offset 4) and naturally aligned elsewhere.
    #if arch(x86_64)
    static let eventSize = 12
    static let dataOffset = 4
    #else
    static let eventSize = 16
    static let dataOffset = 8
    #endif
    private static let readable: UInt32 = 0x001
    private static let add: Int32 = 1
    private static let delete: Int32 = 2

    init?() {
        let library = dlopen(nil, RTLD_NOW)
        guard let create = dlsym(library, "epoll_create1"), let control = dlsym(library, "epoll_ctl"),
            let wait = dlsym(library, "epoll_wait")
        else { return nil }
        self.create = unsafeBitCast(create, to: Create.self)
        self.control = unsafeBitCast(control, to: Control.self)
        self.wait = unsafeBitCast(wait, to: Wait.self)
        descriptor = self.create(0)
        guard descriptor >= 0 else { return nil }
    }

    /// Watches `fd` for input.
    func add(_ fd: Int32) {
        var event = [UInt8](repeating: 0, count: Self.eventSize)
        event.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: Self.readable, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt64(UInt32(bitPattern: fd)), toByteOffset: Self.dataOffset, as: UInt64.self)
            _ = control(descriptor, Self.add, fd, raw.baseAddress)
        }
    }

    /// Stops watching `fd`.
    func remove(_ fd: Int32) {
        var event = [UInt8](repeating: 0, count: Self.eventSize)
        event.withUnsafeMutableBytes { _ = control(descriptor, Self.delete, fd, $0.baseAddress) }
    }

    /// Waits up to `milliseconds` and returns the ready descriptors (reusing `buffer`).
    func ready(into buffer: inout [UInt8], milliseconds: Int32) -> [Int32] {
        let capacity = Int32(buffer.count / Self.eventSize)
        let count = buffer.withUnsafeMutableBytes { wait(descriptor, $0.baseAddress, capacity, milliseconds) }
        guard count > 0 else { return [] }
        return buffer.withUnsafeBytes { raw in
            (0..<Int(count)).map { index in
                Int32(
                    truncatingIfNeeded: raw.loadUnaligned(
                        fromByteOffset: index * Self.eventSize + Self.dataOffset, as: UInt64.self))
            }
        }
    }

    func close() { _ = Glibc.close(descriptor) }
}
#endif
