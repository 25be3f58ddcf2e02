public import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// Streams a response body chunk by chunk through a `URLSessionDataDelegate` (what works on Linux as well as on
    /// Apple platforms). A non-2xx status ends the stream with the body as a ``FirestoreErrorCode``. Cancelling the
    /// consumer cancels the request.
    public func stream(_ request: TransportRequest) async throws -> AsyncThrowingStream<Data, any Error> {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        urlRequest.timeoutInterval = 24 * 3600
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let delegate = StreamingDelegate(continuation: continuation)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil  // see URLSessionTransport.init: no cache, no cancel-after-completion trap
        configuration.timeoutIntervalForRequest = 24 * 3600
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let task = session.dataTask(with: urlRequest)
        continuation.onTermination = { termination in
            // Only a consumer that stopped listening cancels, and only through the session, which cancels the tasks
            // it still has: cancelling a task that has completed traps in swift-corelibs-foundation ("Trying to
            // access a behaviour for a task that in not in the registry").
            guard case .cancelled = termination, !delegate.completed.load(ordering: .acquiring) else { return }
            session.invalidateAndCancel()
        }
        task.resume()
        return stream
    }
}

/// Forwards a streaming response's bytes to an `AsyncThrowingStream`.
private final class StreamingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Touched only from the session's serial delegate queue.
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    private var status = 200
    private var errorBody = Data()
    /// Set once the task has completed, so that ending the stream does not cancel it.
    let completed = Atomic<Bool>(false)

    init(continuation: AsyncThrowingStream<Data, any Error>.Continuation) { self.continuation = continuation }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        status = (response as? HTTPURLResponse)?.statusCode ?? 200
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if (200..<300).contains(status) {
            continuation.yield(data)
        } else {
            errorBody.append(data)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        completed.store(true, ordering: .releasing)
        if !(200..<300).contains(status) {
            continuation.finish(throwing: FirestoreErrorCode(status: status, body: errorBody))
        } else if let error {
            continuation.finish(
                throwing: FirestoreErrorCode(.unavailable, "The stream ended: \(error.localizedDescription)"))
        } else {
            continuation.finish()
        }
        session.finishTasksAndInvalidate()
    }
}
