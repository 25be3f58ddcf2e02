import HearthCore
import HearthHTTP
import HearthListen

/// Carries one listen session over Server-Sent Events: each `ListenResponse` is one `data:` line holding its JSON,
/// heartbeats are comment lines. Everything queued by one call goes out in one write.
final class EventStreamListenSink: ListenSink {
    let stream: HTTPEventStream

    init(stream: HTTPEventStream) {
        self.stream = stream
    }

    /// The first event of a stream: `event: session` naming the session to POST requests to.
    static func sessionEvent(_ id: String) -> [UInt8] {
        var bytes = Array("event: session\ndata: {\"session\":".utf8)
        JSONWriter.appendString(id, into: &bytes)
        bytes.append(contentsOf: "}\n\n".utf8)
        return bytes
    }

    func send(_ responses: [ListenResponse]) -> Bool {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(responses.count * 160)
        for response in responses {
            bytes.append(contentsOf: "data: ".utf8)
            response.appendFirestoreJSON(to: &bytes)
            bytes.append(contentsOf: "\n\n".utf8)
        }
        return stream.send(bytes)
    }

    func heartbeat() -> Bool {
        stream.send(Self.heartbeatBytes)
    }

    func close() {
        stream.close()
    }

    private static let heartbeatBytes = Array(": keep-alive\n\n".utf8)
}
