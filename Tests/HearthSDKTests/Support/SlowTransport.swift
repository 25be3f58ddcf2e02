import Foundation
import Hearth
import Synchronization

/// ``URLSessionTransport`` slowed down: each request waits `sendDelay` before it goes, and streamed bodies reach the
/// SDK 64 KiB every 2 ms, so a test can pause a transfer from an observer before the loopback has finished it. It
/// records each stream's `Range` header.
final class SlowTransport: Transport {
    private let base = URLSessionTransport()
    private let sendDelay: Duration
    private let seen = Mutex<[String?]>([])

    init(sendDelay: Duration = .zero) { self.sendDelay = sendDelay }

    /// The `Range` header of every stream opened, in order (`nil` for none).
    var ranges: [String?] { seen.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if sendDelay > .zero { try await Task.sleep(for: sendDelay) }
        return try await base.send(request)
    }

    func stream(_ request: TransportRequest) async throws -> AsyncThrowingStream<Data, any Error> {
        seen.withLock { $0.append(request.headers["Range"]) }
        let source = try await base.stream(request)
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let pump = Task {
            do {
                for try await chunk in source {
                    var rest = chunk[...]
                    while !rest.isEmpty {
                        try await Task.sleep(for: .milliseconds(2))
                        continuation.yield(Data(rest.prefix(64 << 10)))
                        rest = rest.dropFirst(64 << 10)
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in pump.cancel() }
        return stream
    }
}
