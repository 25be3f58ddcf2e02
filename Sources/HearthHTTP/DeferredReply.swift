internal import CMicroHTTPD
import Synchronization

/// The meeting point between a suspended connection and the `respond` callback of a `.deferred` reply.
///
/// `respond` may run on any thread, before or after the server has suspended the connection, more than once, or after
/// the connection is gone; this state machine turns every ordering into exactly one queued response or a no-op.
final class DeferredReply: Sendable {
    enum Phase {
        /// Created; the connection is not suspended yet.
        case pending
        /// The connection is suspended and waits for `fulfill`.
        case suspended(ConnectionHandle)
        /// Answered before suspension; the access handler queues `response` without suspending.
        case answeredEarly(HTTPResponse)
        /// Answered and resumed; the access handler picks up `response` when called again.
        case resumed(HTTPResponse)
        /// The response was handed to libmicrohttpd, or the connection ended; further calls do nothing.
        case done
    }

    private let phase = Mutex(Phase.pending)

    /// Suspends `connection` unless the reply already arrived. Must run on the connection's daemon thread, inside the
    /// access handler.
    ///
    /// - Returns: `nil` if the connection is now suspended, or the response to queue right away.
    func suspend(_ connection: ConnectionHandle) -> HTTPResponse? {
        phase.withLock { phase in
            switch phase {
            case .pending:
                MHD_suspend_connection(connection.pointer)
                phase = .suspended(connection)
                return nil
            case .answeredEarly(let response):
                phase = .done
                return response
            case .suspended, .resumed, .done:
                return nil
            }
        }
    }

    /// Records the answer and resumes the connection if it is suspended.
    ///
    /// - Returns: whether this call was the first answer.
    @discardableResult
    func fulfill(_ response: HTTPResponse) -> Bool {
        phase.withLock { phase in
            switch phase {
            case .pending:
                phase = .answeredEarly(response)
                return true
            case .suspended(let connection):
                phase = .resumed(response)
                // Under the lock, so `abandon()` (run before libmicrohttpd frees the connection) cannot interleave.
                MHD_resume_connection(connection.pointer)
                return true
            case .answeredEarly, .resumed, .done:
                return false
            }
        }
    }

    /// The answer, once the resumed connection calls the access handler again.
    func takeResponse() -> HTTPResponse? {
        phase.withLock { phase in
            guard case .resumed(let response) = phase else { return nil }
            phase = .done
            return response
        }
    }

    /// Marks the connection as gone, so a late `fulfill` never touches it.
    func abandon() {
        phase.withLock { $0 = .done }
    }
}
