import Foundation
import HearthCore

/// The one `documents:listen` stream of a `Firestore` instance: opens it when the first listener arrives, adds and
/// removes targets by POST, applies the stream's messages to each target, raises snapshots at consistency markers, and
/// reconnects with backoff, re-adding every target with its resume token (docs/realtime.md).
actor ListenConnection {
    private let client: DocumentsClient
    private var targets: [Int: ListenTarget] = [:]
    private var nextID = 1
    private var session: String?
    private var streamTask: Task<Void, Never>?
    private var parser = SSEParser()

    init(client: DocumentsClient) { self.client = client }

    /// Starts watching; returns the target ID for ``remove(_:)``.
    func add(_ kind: ListenKind, deliver: @escaping @Sendable (ListenEvent) -> Void) -> Int {
        let id = nextID
        nextID += 1
        targets[id] = ListenTarget(kind: kind, deliver: deliver)
        if let session {
            Task { await self.post(add: id, session: session) }
        } else if streamTask == nil {
            openStream()
        }
        return id
    }

    /// Stops watching; closes the stream when no target is left.
    func remove(_ id: Int) {
        guard targets.removeValue(forKey: id) != nil else { return }
        if targets.isEmpty {
            streamTask?.cancel()
            streamTask = nil
            session = nil
        } else if let session {
            let client = self.client
            Task {
                _ = try? await client.send(
                    "POST", path: .root, suffix: ":listen", query: [("session", session)],
                    body: ["removeTarget": .integer(Int64(id))])
            }
        }
    }

    private func openStream() {
        streamTask = Task { await self.run() }
    }

    /// Keeps a stream open while there are targets, reconnecting with capped exponential backoff.
    private func run() async {
        var failures = 0
        while !Task.isCancelled && !targets.isEmpty {
            do {
                try await readStream()
                failures = 0
            } catch {
                failures += 1
            }
            session = nil
            parser = SSEParser()
            guard !Task.isCancelled, !targets.isEmpty else { break }
            let delay = min(5_000, 100 << min(failures, 6))
            try? await Task.sleep(for: .milliseconds(delay))
        }
    }

    private func readStream() async throws {
        var text = client.app.serverURL.absoluteString.trimmingSuffix("/") + "/v1/" + client.database.documentsRoot
        text += ":listen"
        guard let url = URL(string: text) else { return }
        var headers = ["Accept": "text/event-stream"]
        if let token = try await client.app.auth.idTokenForRequest() { headers["Authorization"] = "Bearer \(token)" }
        let stream = try await client.app.transport.stream(TransportRequest(method: "GET", url: url, headers: headers))
        for try await chunk in stream {
            for event in parser.feed(chunk) { await handle(event) }
        }
    }

    private func handle(_ event: ServerSentEvent) async {
        guard let json = try? JSONParser.parse(event.data) else { return }
        if event.event == "session" {
            guard let id = json["session"]?.stringValue else { return }
            session = id
            for targetID in targets.keys.sorted() { await post(add: targetID, session: id) }
            return
        }
        apply(json)
    }

    /// Sends `addTarget` for a target (with its resume token after a reconnect); a refusal fails that listener.
    private func post(add id: Int, session: String) async {
        guard let target = targets[id] else { return }
        var add: [String: JSONValue] = ["targetId": .integer(Int64(id))]
        switch target.kind {
        case .document(let path): add["documents"] = ["documents": [.string(client.database.name(of: path))]]
        case .query(let query, _):
            add["query"] = [
                "parent": .string(client.database.name(of: query.parent)),
                "structuredQuery": query.firestoreJSON(database: client.database),
            ]
        }
        if let token = target.resumeToken { add["resumeToken"] = .string(token) }
        do throws(FirestoreErrorCode) {
            _ = try await client.send(
                "POST", path: .root, suffix: ":listen", query: [("session", session)], body: ["addTarget": .object(add)]
            )
        } catch {
            if error.code == .notFound { return }  // the session ended; the reconnect re-adds the target
            fail(id, error)
        }
    }

    private func fail(_ id: Int, _ error: FirestoreErrorCode) {
        guard let target = targets.removeValue(forKey: id) else { return }
        target.deliver(.failed(error))
    }

    private func ids(_ json: JSONValue?) -> [Int] {
        (json?.arrayValue ?? []).compactMap { $0.int64Value.map(Int.init) }
    }

    private func apply(_ json: JSONValue) {
        if let change = json["targetChange"] {
            var ids = ids(change["targetIds"])
            let type = change["targetChangeType"]?.stringValue ?? "NO_CHANGE"
            let token = change["resumeToken"]?.stringValue
            if ids.isEmpty { ids = Array(targets.keys) }
            switch type {
            case "RESET":
                for id in ids {
                    targets[id]?.documents = [:]
                    targets[id]?.dirty = true
                }
            case "CURRENT":
                for id in ids {
                    targets[id]?.current = true
                    targets[id]?.dirty = true
                    if let token { targets[id]?.resumeToken = token }
                }
            case "REMOVE":
                if let cause = change["cause"] {
                    let code = cause["status"]?.stringValue.flatMap(ErrorCode.init(name:))
                    let error = FirestoreErrorCode(
                        FirestoreErrorCode.Code(rawValue: code?.rawValue ?? 2) ?? .unknown,
                        cause["message"]?.stringValue ?? "The listener was removed.")
                    for id in ids { fail(id, error) }
                }
            case "NO_CHANGE":
                for id in ids {
                    if let token { targets[id]?.resumeToken = token }
                    if let event = targets[id]?.raise(), let deliver = targets[id]?.deliver { deliver(event) }
                }
            default:
                break
            }
        } else if let change = json["documentChange"], let document = change["document"],
            let stored = try? client.document(document)
        {
            for id in ids(change["targetIds"]) {
                targets[id]?.documents[stored.path] = stored
                targets[id]?.dirty = true
            }
            for id in ids(change["removedTargetIds"]) {
                targets[id]?.documents[stored.path] = nil
                targets[id]?.dirty = true
            }
        } else if let change = json["documentDelete"] ?? json["documentRemove"],
            let name = change["document"]?.stringValue, let path = try? client.database.path(fromName: name)
        {
            var ids = ids(change["removedTargetIds"])
            if ids.isEmpty { ids = Array(targets.keys) }
            for id in ids where targets[id]?.documents[path] != nil {
                targets[id]?.documents[path] = nil
                targets[id]?.dirty = true
            }
        }
    }
}
