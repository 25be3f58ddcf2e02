import HearthCore
import HearthGRPC
import HearthHTTP
import HearthHTTP2
import HearthLog
import Synchronization

/// Serves gRPC on the HTTP/2 side of the port: each stream is one call of the Firestore service. Messages are read
/// from the stream's DATA with gRPC's framing (10 MiB at most each), answers framed back, and the call's status sent
/// in trailers — as a trailers-only response when nothing was answered. `grpc-timeout` is honoured
/// (`DEADLINE_EXCEEDED`), and a client that cancels (RST_STREAM, or its connection lost) cancels the call's task at
/// once, so a `Listen` or `RunQuery` frees its work. The caller's address is the connection's peer, or the client
/// a trusted proxy's `x-forwarded-for` names (nginx's `grpc_set_header`), by the rule REST requests follow.
func grpcHandler(
    service: FirestoreGRPCService, trustedProxies: TrustedProxies, logger: Logger
) -> HTTP2StreamHandler {
    { stream in
        let head = stream.head
        guard head.method == "POST" else {
            try? await stream.sendTrailers([(":status", "405"), ("allow", "POST")])
            return
        }
        guard let type = head.value(of: "content-type"), type.hasPrefix("application/grpc") else {
            // Not a gRPC client: an HTTP answer it can read.
            try? await stream.sendTrailers([(":status", "415")])
            return
        }
        if let encoding = head.value(of: "grpc-encoding"), encoding != "identity" {
            await finish(
                stream, HearthError(.unimplemented, "grpc-encoding \(encoding.prefix(40)) is not supported."),
                headersSent: false)
            return
        }
        let timeout = head.value(of: "grpc-timeout").flatMap(GRPCTimeout.parse)
        var metadata = HTTPHeaders()
        for (name, value) in head.headers { metadata.add(name: name, value: value) }
        let (requests, input) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        let reader = Task {
            var framing = GRPCMessageReader()
            do {
                for try await chunk in stream.requestBody {
                    framing.append(chunk)
                    while let message = try framing.next() { input.yield(message) }
                }
                if framing.pendingBytes > 0 {
                    throw HearthError(.internal, "The request ended inside a message.")
                }
                input.finish()
            } catch {
                input.finish(throwing: error)
            }
        }
        let headersSent = Atomic<Bool>(false)
        let call = Task { () -> HearthError? in
            await service.serve(
                path: head.path, metadata: metadata,
                remoteAddress: trustedProxies.clientAddress(
                    peer: stream.remoteAddress, forwardedFor: metadata.values(for: "x-forwarded-for")),
                requests: requests
            ) { message in
                if !headersSent.exchange(true, ordering: .relaxed) {
                    try await stream.sendHeaders([(":status", "200"), ("content-type", "application/grpc")])
                }
                try await stream.sendData(GRPCFraming.frame(message))
            }
        }
        stream.onCancel {
            call.cancel()
            reader.cancel()
        }
        let status: HearthError?
        if let timeout {
            status = await withTaskGroup(of: HearthError??.self) { group in
                group.addTask { await call.value }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return .some(HearthError(.deadlineExceeded, "Deadline exceeded."))
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                call.cancel()
                return first ?? nil
            }
        } else {
            status = await call.value
        }
        reader.cancel()
        if stream.isCancelled { return }
        await finish(stream, status, headersSent: headersSent.load(ordering: .relaxed))
    }
}

/// Ends a call with its status: trailers after the answers, or a trailers-only response when none was sent.
private func finish(_ stream: HTTP2ServerStream, _ status: HearthError?, headersSent: Bool) async {
    var trailers = GRPCFraming.trailers(for: status)
    if !headersSent { trailers = [(":status", "200"), ("content-type", "application/grpc")] + trailers }
    try? await stream.sendTrailers(trailers)
}

/// gRPC's `grpc-timeout` header: an integer of at most eight digits and a unit (`H`, `M`, `S`, `m`, `u`, `n`).
enum GRPCTimeout {
    /// The duration, or `nil` for a malformed value (then no deadline applies, as gRPC servers treat it).
    static func parse(_ text: String) -> Duration? {
        guard let unit = text.last, text.count >= 2, text.count <= 9, let value = Int64(text.dropLast()), value >= 0
        else { return nil }
        switch unit {
        case "H": return .seconds(value * 3600)
        case "M": return .seconds(value * 60)
        case "S": return .seconds(value)
        case "m": return .milliseconds(value)
        case "u": return .microseconds(value)
        case "n": return .nanoseconds(value)
        default: return nil
        }
    }
}
