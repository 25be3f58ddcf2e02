public import Foundation

extension Transport {
    /// Transports that cannot stream (such as simple test fakes) report live listening as unimplemented.
    public func stream(_ request: TransportRequest) async throws -> AsyncThrowingStream<Data, any Error> {
        throw FirestoreErrorCode(.unimplemented, "This transport does not support streaming responses.")
    }
}

/// One Server-Sent Event.
struct ServerSentEvent: Sendable, Equatable {
    var event: String
    var data: String
}

/// Splits an SSE byte stream into events: `event:`/`data:` lines up to a blank line; `:` comments (heartbeats) are
/// skipped. Pure, so it is tested on its own.
struct SSEParser {
    private var buffer: [UInt8] = []
    private var event = ""
    private var data: [String] = []

    mutating func feed(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        buffer.append(contentsOf: bytes)
        var events: [ServerSentEvent] = []
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(buffer[..<newline])
            buffer.removeSubrange(...newline)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if line.isEmpty {
                if !data.isEmpty || !event.isEmpty {
                    events.append(
                        ServerSentEvent(event: event.isEmpty ? "message" : event, data: data.joined(separator: "\n")))
                }
                event = ""
                data = []
                continue
            }
            if line.first == UInt8(ascii: ":") { continue }
            let text = String(decoding: line, as: UTF8.self)
            let field: Substring
            var value: Substring
            if let colon = text.firstIndex(of: ":") {
                field = text[..<colon]
                value = text[text.index(after: colon)...]
                if value.first == " " { value = value.dropFirst() }
            } else {
                field = Substring(text)
                value = ""
            }
            switch field {
            case "event": event = String(value)
            case "data": data.append(String(value))
            default: break
            }
        }
        return events
    }
}
