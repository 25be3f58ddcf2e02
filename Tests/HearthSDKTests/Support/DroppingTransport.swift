import Foundation
import Hearth
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``URLSessionTransport`` whose first `count` requests matching `drops` fail on the way, as a request does when the
/// connection it went out on breaks: the SDK sees a transport error, not an answer.
final class DroppingTransport: Transport {
    private let base = URLSessionTransport()
    private let drops: @Sendable (TransportRequest) -> Bool
    private let remaining: Mutex<Int>

    init(count: Int, drops: @escaping @Sendable (TransportRequest) -> Bool) {
        remaining = Mutex(count)
        self.drops = drops
    }

    /// How many of the `count` failures are still to come.
    var left: Int { remaining.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let drop =
            drops(request)
            && remaining.withLock { left in
                guard left > 0 else { return false }
                left -= 1
                return true
            }
        if drop { throw URLError(.networkConnectionLost) }
        return try await base.send(request)
    }

    func stream(_ request: TransportRequest) async throws -> AsyncThrowingStream<Data, any Error> {
        try await base.stream(request)
    }
}
