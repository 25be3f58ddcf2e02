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
        /// Answered and resumed; the access handler picks up the response (`resumedResponse`) when called again.
        case resumed
        /// The response was handed to libmicrohttpd, or the connection ended; further calls do nothing.
        case done
    }

    private let phase = Mutex(Phase.pending)
    /// The answer of a resumed connection, kept apart from `phase` so the access handler can take it without that
    /// lock: `fulfill` holds it while libmicrohttpd resumes the connection (a system call), and the connection's thread,
    /// woken by that very call, spun on it (3% of the HTTP threads' time under a create load).
    private let resumedResponse = Mutex<HTTPResponse?>(nil)

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
                resumedResponse.withLock { $0 = response }
                phase = .resumed
                // Under the lock, so `abandon()` (run before libmicrohttpd frees the connection) cannot interleave.
                MHD_resume_connection(connection.pointer)
                return true
            case .answeredEarly, .resumed, .done:
                return false
            }
        }
    }

    /// The answer, once the resumed connection calls the access handler again; `nil` before the resume and after the
    /// first call. `phase` stays `.resumed`, which refuses every later `fulfill` and `suspend` as `.done` would.
    func takeResponse() -> HTTPResponse? {
        resumedResponse.withLock { $0.take() }
    }

    /// Marks the connection as gone, so a late `fulfill` never touches it.
    func abandon() {
        phase.withLock { $0 = .done }
    }
}
