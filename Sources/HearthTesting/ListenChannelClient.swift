/// The documents listen channel (`GET …/documents:listen`, Hearth's SSE channel) on an ``EventStreamClient``: it
/// opens the stream and waits for the `session` event, whose ID the client's `POST`s name.
public final class ListenChannelClient: Sendable {
    /// The stream.
    public let stream: EventStreamClient
    /// The session ID from the stream's first event.
    public let session: String

    /// Opens `GET /v1/projects/PROJECT/databases/DATABASE/documents:listen` with `headers` (`"Name: value"` lines)
    /// and waits (at most 20 s) for the `session` event; throws with the server's answer when it is not a stream.
    public init(
        port: Int, project: String = "demo", database: String = "(default)", headers: [String] = [],
        receiveBuffer: Int? = nil
    ) throws {
        let fields = headers.map { line -> (String, String) in
            guard let colon = line.firstIndex(of: ":") else { return (line, "") }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        stream = try EventStreamClient(
            port: port, path: "/v1/projects/\(project)/databases/\(database)/documents:listen", headers: fields,
            receiveBuffer: receiveBuffer)
        try stream.waitForHead()
        guard stream.status == 200 else {
            _ = stream.waitForFirstEvent(timeout: .milliseconds(500))
            throw HarnessError("GET :listen answered \(stream.status ?? 0): \(stream.responseHead)\(stream.plainBody)")
        }
        guard let first = stream.waitForFirstEvent() else { throw HarnessError("no session event within 20 s") }
        guard first.name == "session", let id = first.json?["session"]?.stringValue else {
            throw HarnessError("the first event is not the session: \(first)")
        }
        session = id
        stream.consume(1)
    }

    /// The response's status line and header fields, as received.
    public var responseHead: String { stream.responseHead }
    /// Whether the server ended the stream (or the connection broke).
    public var ended: Bool { stream.ended }
    /// Heartbeat comment blocks received so far.
    public var comments: Int { stream.comments }
    /// Every event received, the session event first.
    public var allEvents: [StreamEvent] { stream.received }

    /// Stops reading: the server's writes pile up in the kernel, then in the server.
    public func pause() { stream.pause() }
    /// Reads again.
    public func resume() { stream.resume() }
    /// Closes the connection.
    public func close() { stream.close() }

    /// The next `count` events not yet handed out, waiting up to 20 s for them.
    public func next(_ count: Int) async throws -> [StreamEvent] { try await stream.next(count) }

    /// The events not yet handed out up to and including the first that `isLast` accepts (waiting up to 20 s).
    public func next(through isLast: @escaping @Sendable (StreamEvent) -> Bool) async throws -> [StreamEvent] {
        try await stream.next(through: isLast)
    }

    /// Waits (up to 20 s) for `condition` on the whole history.
    public func wait(for what: String, _ condition: @escaping @Sendable (ListenChannelClient) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition(self) {
            guard ContinuousClock.now < deadline else { throw HarnessError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
