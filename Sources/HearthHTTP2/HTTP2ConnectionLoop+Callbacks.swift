internal import CNGHTTP2
import Foundation

// nghttp2's callbacks. Each is a free function (it captures nothing) that finds its loop through `user_data`; all
// run on the connection's thread, inside `nghttp2_session_mem_recv` or `nghttp2_session_mem_send`.

extension HTTP2ConnectionLoop {
    func installCallbacks(_ callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, onFrameSent)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClosed)
    }

    // MARK: - Request heads

    func beginHeaders(_ frame: nghttp2_frame) {
        guard isRequestHead(frame) else { return }
        pendingHeads[frame.hd.stream_id] = PendingHead()
    }

    func header(_ frame: nghttp2_frame, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard isRequestHead(frame), var head = pendingHeads[frame.hd.stream_id] else { return }
        defer { pendingHeads[frame.hd.stream_id] = head }
        head.size += name.count + value.count + 32
        guard !head.tooLarge else { return }
        guard head.size <= configuration.maxHeaderListSize else {
            // The fields gathered so far are dropped: an oversized head costs no more memory than the limit.
            head.tooLarge = true
            head.headers = []
            return
        }
        let nameText = String(decoding: name, as: UTF8.self)
        let valueText = String(decoding: value, as: UTF8.self)
        switch nameText {
        case ":method": head.method = valueText
        case ":path": head.path = valueText
        case ":authority": head.authority = valueText
        default:
            // nghttp2 has checked the pseudo-headers (RFC 9113 §8.3); `:scheme` and any extension one are not
            // the handler's business.
            if !nameText.hasPrefix(":") { head.headers.append((nameText, valueText)) }
        }
    }

    private func isRequestHead(_ frame: nghttp2_frame) -> Bool {
        frame.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) && frame.headers.cat == NGHTTP2_HCAT_REQUEST
    }

    // MARK: - Frames

    func frameReceived(_ frame: nghttp2_frame) {
        let id = frame.hd.stream_id
        let endStream = frame.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch UInt32(frame.hd.type) {
        case NGHTTP2_HEADERS.rawValue:
            if isRequestHead(frame), let head = pendingHeads.removeValue(forKey: id) {
                start(stream: id, head: head, endStream: endStream)
            } else if endStream {
                finishBody(stream: id)
            }
        case NGHTTP2_DATA.rawValue:
            if endStream { finishBody(stream: id) }
        case NGHTTP2_PING.rawValue:
            let ack = frame.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0
            let data = withUnsafeBytes(of: frame.ping.opaque_data) { Array($0) }
            if ack && goAwayStage == 1 && data == Self.shutdownPing { finishGoAway() }
        default:
            break
        }
    }

    private func start(stream id: Int32, head pending: PendingHead, endStream: Bool) {
        guard !pending.tooLarge else {
            // 431 Request Header Fields Too Large (RFC 6585), ending the stream; its body is never read.
            _ = HeaderBlock.with([(":status", "431")]) { nghttp2_submit_response(session, id, $0, $1, nil) }
            return
        }
        var state = StreamState()
        state.inboundFinished = endStream
        connection.shared.withLock { $0.streams[id] = state }
        openStreams += 1
        let head = HTTP2RequestHead(
            method: pending.method ?? "", path: pending.path ?? "", authority: pending.authority,
            headers: pending.headers)
        let stream = HTTP2ServerStream(head: head, id: id, connection: connection)
        let handler = handler
        let connection = connection
        Task {
            await handler(stream)
            connection.handlerFinished(stream: id)
        }
    }

    private func finishBody(stream id: Int32) {
        let waiter = connection.shared.withLock { shared -> CheckedContinuation<[UInt8]?, any Error>? in
            guard var state = shared.streams[id] else { return nil }
            defer { shared.streams[id] = state }
            state.inboundFinished = true
            guard state.inboundBytes == 0, let waiter = state.bodyWaiter else { return nil }
            state.bodyWaiter = nil
            return waiter
        }
        waiter?.resume(returning: nil)
    }

    func dataChunk(stream id: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        let chunk = Array(bytes)
        enum Delivery {
            case dropped
            case buffered
            case handed(CheckedContinuation<[UInt8]?, any Error>)
        }
        let delivery = connection.shared.withLock { shared -> Delivery in
            guard var state = shared.streams[id], !state.closed, !state.cancelled else { return .dropped }
            defer { shared.streams[id] = state }
            if let waiter = state.bodyWaiter {
                state.bodyWaiter = nil
                return .handed(waiter)
            }
            state.inbound.append(chunk)
            state.inboundBytes += chunk.count
            return .buffered
        }
        switch delivery {
        case .dropped:
            // Nobody will take it: give the connection window back at once (the stream's no longer matters).
            connectionConsume += chunk.count
        case .buffered:
            break
        case .handed(let waiter):
            streamConsume.append((id, chunk.count))
            waiter.resume(returning: chunk)
        }
    }

    func frameSent(_ frame: nghttp2_frame) {
        let type = UInt32(frame.hd.type)
        guard type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_DATA.rawValue,
            frame.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        else { return }
        let id = frame.hd.stream_id
        let requestOpen = connection.shared.withLock { shared -> Bool in
            guard var state = shared.streams[id] else { return false }
            state.localEnded = true
            shared.streams[id] = state
            return !state.inboundFinished
        }
        // The response is complete while the client is still sending: RST_STREAM NO_ERROR tells it to stop
        // (RFC 9113 §8.1) instead of filling the stream's window for nobody.
        if requestOpen { resetsDue.append(id) }
    }

    func streamClosed(_ id: Int32) {
        pendingHeads[id] = nil
        let outcome = connection.shared.withLock {
            shared -> (Cancellation?, Int, CheckedContinuation<[UInt8]?, any Error>?)? in
            guard var state = shared.streams[id] else { return nil }
            state.closed = true
            // Bytes received and never taken: the connection's window must not shrink for ever by them.
            let unconsumed = state.inboundBytes
            var cancellation: Cancellation?
            var finishedWaiter: CheckedContinuation<[UInt8]?, any Error>?
            if !state.localEnded {
                cancellation = state.cancel()
            } else if let waiter = state.bodyWaiter {
                // The response is complete; a body the client never ended just stops here.
                state.bodyWaiter = nil
                finishedWaiter = waiter
            }
            shared.streams[id] = state.handlerFinished ? nil : state
            return (cancellation, unconsumed, finishedWaiter)
        }
        guard let (cancellation, unconsumed, finishedWaiter) = outcome else { return }
        openStreams -= 1
        connectionConsume += unconsumed
        cancellation?.run()
        finishedWaiter?.resume(returning: nil)
    }

    // MARK: - Response data

    func readData(
        stream id: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        enum Read {
            case failed
            case deferred
            case bytes(Int, waiters: [CheckedContinuation<Void, any Error>], trailers: [(name: String, value: String)]?)
        }
        let budget = connection.sendBudget
        let read = connection.shared.withLock { shared -> Read in
            guard var state = shared.streams[id], !state.cancelled else { return .failed }
            defer { shared.streams[id] = state }
            let count = state.takeOutbound(into: buffer, count: length)
            var trailers: [(name: String, value: String)]?
            if state.outboundBytes == 0 && state.phase == .trailersQueued {
                flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                if !state.trailers.isEmpty {
                    // The trailers' HEADERS frame ends the stream instead of this DATA frame.
                    flags.pointee |= NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
                    trailers = state.trailers
                }
                state.phase = .ended
            } else if count == 0 {
                state.deferred = true
                return .deferred
            }
            var waiters: [CheckedContinuation<Void, any Error>] = []
            if state.outboundBytes <= budget {
                waiters = Array(state.sendWaiters.values)
                state.sendWaiters = [:]
            }
            return .bytes(count, waiters: waiters, trailers: trailers)
        }
        switch read {
        case .failed:
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        case .deferred:
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        case .bytes(let count, let waiters, let trailers):
            for waiter in waiters { waiter.resume() }
            if let trailers { trailersDue.append((id, trailers)) }
            return count
        }
    }
}

private func loop(_ userData: UnsafeMutableRawPointer?) -> HTTP2ConnectionLoop {
    Unmanaged<HTTP2ConnectionLoop>.fromOpaque(userData!).takeUnretainedValue()
}

private func onBeginHeaders(
    session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    loop(userData).beginHeaders(frame.pointee)
    return 0
}

private func onHeader(
    session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, name: UnsafePointer<UInt8>?, nameLength: Int,
    value: UnsafePointer<UInt8>?, valueLength: Int, flags: UInt8, userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    loop(userData).header(
        frame.pointee, name: UnsafeBufferPointer(start: name, count: nameLength),
        value: UnsafeBufferPointer(start: value, count: valueLength))
    return 0
}

private func onFrameReceived(
    session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    loop(userData).frameReceived(frame.pointee)
    return 0
}

private func onDataChunk(
    session: OpaquePointer?, flags: UInt8, streamID: Int32, data: UnsafePointer<UInt8>?, length: Int,
    userData: UnsafeMutableRawPointer?
) -> Int32 {
    loop(userData).dataChunk(stream: streamID, bytes: UnsafeBufferPointer(start: data, count: length))
    return 0
}

private func onFrameSent(
    session: OpaquePointer?, frame: UnsafePointer<nghttp2_frame>?, userData: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    loop(userData).frameSent(frame.pointee)
    return 0
}

private func onStreamClosed(
    session: OpaquePointer?, streamID: Int32, errorCode: UInt32, userData: UnsafeMutableRawPointer?
) -> Int32 {
    loop(userData).streamClosed(streamID)
    return 0
}

/// The data provider of every response: the stream's queued bytes, deferred while there are none.
func dataSourceRead(
    session: OpaquePointer?, streamID: Int32, buffer: UnsafeMutablePointer<UInt8>?, length: Int,
    flags: UnsafeMutablePointer<UInt32>?, source: UnsafeMutablePointer<nghttp2_data_source>?,
    userData: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let flags else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
    return loop(userData).readData(stream: streamID, into: buffer, length: length, flags: flags)
}
