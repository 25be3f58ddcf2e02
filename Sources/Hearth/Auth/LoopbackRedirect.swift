import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket (outside the class, whose `socket` property hides the function of that name).
private func openStreamSocket() -> Int32 {
    #if canImport(Glibc)
    socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    socket(AF_INET, SOCK_STREAM, 0)
    #endif
}

private func acceptConnection(_ listener: Int32) -> Int32 { accept(listener, nil, nil) }

/// Where a provider sign-in in the browser comes back to a native app: a one-shot HTTP listener on
/// `127.0.0.1` and a free port (RFC 8252's loopback redirect). The browser's last redirect lands here; the request's
/// URL carries what `accounts:signInWithIdp` needs, and the page tells the user they can go back to the app.
final class LoopbackRedirect: @unchecked Sendable {
    /// The listening socket; closed once a redirect came in or the wait ended.
    private let socket: Int32
    /// `http://127.0.0.1:PORT/__/auth/callback`, the `continueUri` to send.
    let url: URL

    /// Binds `127.0.0.1:0` and listens.
    init() throws(AuthErrorCode) {
        let descriptor = openStreamSocket()
        guard descriptor >= 0 else { throw AuthErrorCode(.internalError, "Cannot open a socket for the sign-in.") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0, listen(descriptor, 4) == 0 else {
            close(descriptor)
            throw AuthErrorCode(.internalError, "Cannot listen on 127.0.0.1 for the sign-in's redirect.")
        }
        socket = descriptor
        url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/__/auth/callback")!
    }

    deinit { close(socket) }

    /// Waits (on a thread of its own, at most `timeout`) for the browser's request and answers it; returns the
    /// full URL it asked for.
    func waitForRedirect(timeout: Duration) async throws(AuthErrorCode) -> URL {
        let result: URL? = await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in continuation.resume(returning: accept(timeout: timeout)) }
        }
        guard let result else {
            throw AuthErrorCode(.webContextCancelled, "The sign-in in the browser did not come back in time.")
        }
        return result
    }

    private func accept(timeout: Duration) -> URL? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            let connection = acceptConnection(socket)
            guard connection >= 0 else { continue }
            defer { close(connection) }
            guard let target = readRequestTarget(connection), target.hasPrefix("/__/auth/callback") else {
                respond(connection, status: "404 Not Found", "Not the sign-in's callback.")
                continue
            }
            respond(connection, status: "200 OK", "Signed in. You can close this window and go back to the app.")
            return URL(string: "http://127.0.0.1:\(url.port ?? 0)\(target)")
        }
        return nil
    }

    /// The request target of `GET TARGET HTTP/1.1`, read until the end of the head (at most 16 KiB, 10 s).
    private func readRequestTarget(_ connection: Int32) -> String? {
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + .seconds(10)
        while head.count < 16 * 1024, ContinuousClock.now < deadline {
            var poller = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            head += buffer[..<count]
            if head.count >= 4, head.suffix(4) == [13, 10, 13, 10] { break }
        }
        let line = String(decoding: head.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET" else { return nil }
        return String(parts[1])
    }

    private func respond(_ connection: Int32, status: String, _ message: String) {
        let body = "<!doctype html><meta charset=utf-8><title>Hearth</title><p>\(message)</p>"
        let reply =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n\(body)"
        _ = Array(reply.utf8).withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
    }
}
