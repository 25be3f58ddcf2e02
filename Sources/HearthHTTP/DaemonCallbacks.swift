internal import CMicroHTTPD
import Foundation

// libmicrohttpd's callbacks. Each is a free function (so it captures nothing and is not actor-isolated) and finds its
// Swift object through the `cls` pointer it was registered with.

/// The access handler: called once when the headers are in, once per body chunk, once when the request is
/// complete, and once more after every resume of a suspended connection.
func accessHandler(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
    uploadDataSize: UnsafeMutablePointer<Int>?, requestState: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let uploadDataSize, let requestState else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()

    guard let statePointer = requestState.pointee else {
        core.headerDeadlines.disarm(connection)
        let context = core.beginRequest(connection)
        requestState.pointee = Unmanaged.passRetained(context).toOpaque()
        // Answered before any body byte is read; the response closes the connection, so the body is never parsed.
        if let rejection = FramingCheck.rejection(connection) { return core.queue(rejection, on: connection) }
        if core.responder.streamsBodies {
            return core.planBody(context: context, connection: connection, url: url, method: method)
        }
        return .YES
    }
    let context = Unmanaged<RequestContext>.fromOpaque(statePointer).takeUnretainedValue()

    if uploadDataSize.pointee > 0 {
        let chunk = UnsafeRawBufferPointer(start: uploadData, count: uploadDataSize.pointee)
        if let streamed = context.streamedBody {
            streamed.receive(chunk)
        } else {
            context.append(chunk, limit: core.configuration.maxBodyBytes)
        }
        uploadDataSize.pointee = 0
        return .YES
    }
    if let deferred = context.deferred {
        // Called again after a resume: the answer is waiting.
        guard let response = deferred.takeResponse() else { return .NO }
        // The reply is spent (it refuses any later answer) and the answering thread unregisters it, so the
        // completion callback has nothing left to do with it. It would otherwise take the reply's lock, which that
        // thread may still hold while libmicrohttpd finishes resuming: seen as spinning on the HTTP threads.
        context.deferred = nil
        return core.queue(response, on: connection)
    }
    if let streamed = context.streamedBody, let head = context.head {
        // The body is complete: from here on the sink answers, and the completion callback must not abandon it.
        context.streamedBody = nil
        context.head = nil
        return core.carryOut(
            streamed.sink.complete(streamed.outcome, request: head), context: context, connection: connection)
    }
    var request: HTTPRequest
    if let head = context.head {
        request = head
        request.body = context.body
        request.bodyTooLarge = context.bodyTooLarge
        context.head = nil
    } else {
        request = makeRequest(
            connection: connection, url: url, method: method, body: context.body, bodyTooLarge: context.bodyTooLarge,
            trustedProxies: core.configuration.trustedProxies)
    }
    context.body = []
    return core.dispatch(request, context: context, connection: connection)
}

/// Runs when a request ends (answered, failed, or torn down by a stop); releases its context.
func requestCompleted(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    requestState: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, reason: MHD_RequestTerminationCode
) {
    guard let cls, let requestState, let statePointer = requestState.pointee else { return }
    requestState.pointee = nil
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(statePointer).takeRetainedValue()
    // The client stopped (or the server stopped) before the streamed body ended.
    context.streamedBody?.sink.abandon()
    context.streamedBody = nil
    if let deferred = context.deferred {
        deferred.abandon()
        core.unregister(deferred)
    }
    if !context.isStream {
        core.inFlight.subtract(1, ordering: .releasing)
    }
}

/// libmicrohttpd's URI-log callback, whose signature its header gives only in prose.
typealias URILogCallback =
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?
    ) -> UnsafeMutableRawPointer?

/// A request line has arrived: its head now has `headerTimeout` to follow. Returns no request state, so the access
/// handler's first call still sees none.
func requestLineReceived(
    cls: UnsafeMutableRawPointer?, uri: UnsafePointer<CChar>?, connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let cls, let connection else { return nil }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    core.headerDeadlines.arm(connection, socket: hearth_mhd_connection_fd(connection))
    return nil
}

/// Counts open connections for `HTTPServer.openConnections` and watches each new one until its first head is in.
func connectionNotified(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    switch code {
    case .CONNECTION_NOTIFY_STARTED:
        core.openConnections.add(1, ordering: .relaxed)
        if core.configuration.http2Connections != nil { core.handedOff.subtract(1, ordering: .relaxed) }
        core.headerDeadlines.arm(connection, socket: hearth_mhd_connection_fd(connection))
    case .CONNECTION_NOTIFY_CLOSED:
        core.headerDeadlines.disarm(connection)
        core.openConnections.subtract(1, ordering: .relaxed)
    default: break
    }
}

/// libmicrohttpd's diagnostics: kept while `start()` runs to explain a failure, otherwise passed to the configured
/// handler or dropped.
func daemonLogged(cls: UnsafeMutableRawPointer?, format: UnsafePointer<CChar>?, arguments: CVaListPointer?) {
    guard let cls, let format, let arguments else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    var buffer = [CChar](repeating: 0, count: 512)
    _ = buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, arguments) }
    let line = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        .trimmingCharacters(in: .whitespacesAndNewlines)
    let captured = core.startupLog.withLock { log -> Bool in
        guard log != nil else { return false }
        log?.append(line)
        return true
    }
    if !captured { core.configuration.diagnosticsHandler?(line) }
}

/// Supplies the next bytes of an event stream, or parks the connection until `send` wakes it.
func eventStreamRead(
    cls: UnsafeMutableRawPointer?, position: UInt64, buffer: UnsafeMutablePointer<CChar>?, max: Int
) -> Int {
    guard let cls, let buffer else { return endWithError }
    let stream = Unmanaged<HTTPEventStream>.fromOpaque(cls).takeUnretainedValue()
    return stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
}

/// libmicrohttpd is done with an event-stream response: end the stream and drop the retain taken when it was queued.
func eventStreamReleased(cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<HTTPEventStream>.fromOpaque(cls).takeRetainedValue().finish()
}
