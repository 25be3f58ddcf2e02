internal import CMicroHTTPD
import Foundation

extension ServerCore {
    /// The first access-handler call of a request: the headers are in, the body is not.
    func beginRequest(_ connection: OpaquePointer) -> RequestContext {
        inFlight.add(1, ordering: .relaxed)
        // While the body arrives, silence for `bodyTimeout` ends the connection (a chunk size of 2^64-1 followed by
        // nothing waited the full idle timeout); `queue` puts the idle timeout back.
        if configuration.bodyTimeout < configuration.connectionTimeout || configuration.connectionTimeout == 0 {
            hearth_mhd_set_timeout(connection, UInt32(configuration.bodyTimeout))
        }
        let limit = configuration.maxBodyBytes
        let declared = declaredContentLength(connection)
        // Deciding from the declared length means an oversized body is never buffered, not even its first chunk.
        let tooLarge = declared > limit
        // The reservation is capped: a client may declare a large body and then send nothing, once per connection.
        return RequestContext(bodyTooLarge: tooLarge, expectedBodyBytes: tooLarge ? 0 : min(declared, 64 * 1024))
    }

    /// Asks the responder, once the head is in, whether this body streams; builds the head the request keeps.
    func planBody(
        context: RequestContext, connection: OpaquePointer, url: UnsafePointer<CChar>?,
        method: UnsafePointer<CChar>?
    ) -> MHD_Result {
        let head = makeRequest(
            connection: connection, url: url, method: method, body: [], bodyTooLarge: false,
            trustedProxies: configuration.trustedProxies)
        switch responder.bodyPlan(for: head) {
        case .buffered:
            context.head = head
            return .YES
        case .reject(let response):
            return queue(response, on: connection)
        case .streamed(let sink):
            let streamed = StreamedBody(sink: sink)
            // The buffered path's verdict on the declared length does not apply: the sink has its own limit.
            context.bodyTooLarge = false
            if streamed.declaredTooLarge(declaredContentLength(connection)) {
                // Answered before the body is read, so a client sending gigabytes over the limit is not read.
                guard case .response(let response) = sink.complete(.tooLarge, request: head) else {
                    return queue(
                        HTTPResponse.text(status: 413, "request body larger than \(sink.maxBodyBytes) bytes\n"),
                        on: connection)
                }
                return queue(response, on: connection)
            }
            context.head = head
            context.body = []
            context.streamedBody = streamed
            return .YES
        }
    }

    /// Calls the responder for a complete request and carries out its reply.
    func dispatch(_ request: HTTPRequest, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        carryOut(responder.reply(to: request), context: context, connection: connection)
    }

    /// Carries out a reply: queues a response, suspends for a deferred one, or attaches a stream.
    func carryOut(_ reply: HTTPReply, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        switch reply {
        case .response(let response):
            return queue(response, on: connection)
        case .deferred(let start):
            return suspend(until: start, context: context, connection: connection)
        case .stream(let stream):
            context.isStream = true
            inFlight.subtract(1, ordering: .releasing)
            return attach(stream, to: connection)
        }
    }

    private func suspend(
        until start: @Sendable (_ respond: @escaping @Sendable (HTTPResponse) -> Void) -> Void,
        context: RequestContext, connection: OpaquePointer
    ) -> MHD_Result {
        let reply = DeferredReply()
        context.deferred = reply
        guard register(reply) else {
            reply.abandon()
            return queue(Self.unavailableResponse, on: connection)
        }
        // Suspend before handing out `respond`, so `respond` always finds a suspended connection to resume (or, if a
        // stop answered first, nothing to suspend).
        if let answered = reply.suspend(ConnectionHandle(pointer: connection)) {
            unregister(reply)
            return queue(answered, on: connection)
        }
        start { [self] response in
            if reply.fulfill(response) { unregister(reply) }
        }
        return .YES
    }

    /// The request's declared `Content-Length`; 0 when there is none.
    func declaredContentLength(_ connection: OpaquePointer) -> Int {
        MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length").map(parseContentLength) ?? 0
    }

    /// Hands a finished response to libmicrohttpd, which copies it (or, for a file body, reads the file).
    func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let created: OpaquePointer?
        if let file = response.file {
            created = fileResponse(file)
        } else {
            created = response.body.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(
                    bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        restoreIdleTimeout(connection)
        addHeaders(response.headers, to: created)
        let status = (100...999).contains(response.status) ? response.status : 500
        return MHD_queue_response(connection, UInt32(status), created)
    }

    /// A libmicrohttpd response reading `file`'s bytes; it owns the descriptor from here on and closes it when done.
    private func fileResponse(_ file: HTTPFileBody) -> OpaquePointer? {
        guard let descriptor = file.take() else { return nil }
        guard let created = MHD_create_response_from_fd_at_offset64(file.length, descriptor, file.offset) else {
            close(descriptor)
            return nil
        }
        return created
    }

    /// Back from `bodyTimeout` to the idle timeout once the request is in.
    private func restoreIdleTimeout(_ connection: OpaquePointer) {
        if configuration.bodyTimeout < configuration.connectionTimeout || configuration.connectionTimeout == 0 {
            hearth_mhd_set_timeout(connection, UInt32(configuration.connectionTimeout))
        }
    }

    private func attach(_ stream: HTTPEventStream, to connection: OpaquePointer) -> MHD_Result {
        restoreIdleTimeout(connection)
        let report = configuration.diagnosticsHandler
        guard stream.attach(to: ConnectionHandle(pointer: connection), budget: streamBudget, reportCutOff: report)
        else {
            return queue(
                HTTPResponse(status: 500, body: Array("event stream already in use\n".utf8)), on: connection)
        }
        register(stream)
        let retained = Unmanaged.passRetained(stream).toOpaque()
        guard
            let created = MHD_create_response_from_callback(
                UInt64.max, 16 * 1024, eventStreamRead, retained, eventStreamReleased)
        else {
            eventStreamReleased(cls: retained)
            return .NO
        }
        defer { MHD_destroy_response(created) }
        var headers = stream.headers
        if !headers.contains("Content-Type") { headers.add(name: "Content-Type", value: "text/event-stream") }
        if !headers.contains("Cache-Control") { headers.add(name: "Cache-Control", value: "no-cache") }
        addHeaders(headers, to: created)
        let status = (100...999).contains(stream.status) ? stream.status : 500
        // On failure, destroying the response runs `eventStreamReleased`, which ends the stream.
        return MHD_queue_response(connection, UInt32(status), created)
    }

    private func addHeaders(_ headers: HTTPHeaders, to response: OpaquePointer) {
        // libmicrohttpd refuses fields it manages itself (Content-Length) and malformed ones; those are skipped.
        for field in headers {
            // Explicit `withCString`: the implicit String-to-pointer conversion copied each string into a new array.
            _ = field.name.withCString { name in
                field.value.withCString { value in MHD_add_response_header(response, name, value) }
            }
        }
        if draining.load(ordering: .relaxed) {
            _ = MHD_add_response_header(response, "Connection", "close")
        }
    }
}

/// Parses a Content-Length value; an unparsable or overflowing one counts as unlimited, so it trips the limit.
private func parseContentLength(_ value: UnsafePointer<CChar>) -> Int {
    var result = 0
    var pointer = value
    while pointer.pointee == 0x20 || pointer.pointee == 0x09 { pointer += 1 }
    guard pointer.pointee != 0 else { return Int.max }
    while pointer.pointee != 0 {
        let digit = Int(pointer.pointee) - 0x30
        guard (0...9).contains(digit) else { break }
        let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times10.addingReportingOverflow(digit)
        if overflow1 || overflow2 { return Int.max }
        result = sum
        pointer += 1
    }
    return result
}
