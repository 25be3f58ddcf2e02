import Foundation
import HearthCore
import HearthTesting
import Testing

/// One listen stream on a server under test, with helpers to add and remove targets and to read its events.
struct ListenStream: Sendable {
    let server: HearthProcess
    let client: ListenChannelClient
    let project: String
    var database = "(default)"

    /// Opens `GET …/documents:listen`.
    static func open(
        _ server: HearthProcess, project: String = "demo", database: String = "(default)", headers: [String] = [],
        receiveBuffer: Int? = nil
    ) throws -> ListenStream {
        ListenStream(
            server: server,
            client: try ListenChannelClient(
                port: server.port, project: project, database: database, headers: headers,
                receiveBuffer: receiveBuffer),
            project: project, database: database)
    }

    /// POSTs one ListenRequest to the session.
    func post(_ json: String, headers: [String: String] = [:]) async throws -> HTTPResult {
        try await server.client.request(
            "POST", FS.root(project, database: database) + ":listen", query: [("session", client.session)], json: json,
            headers: headers)
    }

    /// Adds a target watching documents (paths relative to the documents root), expecting `{}`.
    func add(
        _ id: Int, documents: [String], resumeToken: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let names = documents.map { "\"\(FS.name($0, project: project, database: database))\"" }.joined(separator: ",")
        try await expectAccepted(
            #"{"addTarget":{"targetId":\#(id),\#(token(resumeToken))"documents":{"documents":[\#(names)]}}}"#,
            sourceLocation)
    }

    /// Adds a target on a structured query (its JSON) under the documents root, expecting `{}`.
    func add(
        _ id: Int, query: String, resumeToken: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let parent = "projects/\(project)/databases/\(database)/documents"
        try await expectAccepted(
            #"{"addTarget":{"targetId":\#(id),\#(token(resumeToken))"query":{"parent":"\#(parent)","structuredQuery":\#(query)}}}"#,
            sourceLocation)
    }

    /// Removes a target, expecting `{}`.
    func remove(_ id: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await expectAccepted(#"{"removeTarget":\#(id)}"#, sourceLocation)
    }

    /// The events up to and including the next consistency marker, described (see ``describeListen``).
    func nextBatch() async throws -> [String] {
        try await client.next(through: { describeListen($0) == "marker" }).map(describeListen)
    }

    /// The events up to and including the next marker, raw.
    func nextBatchEvents() async throws -> [StreamEvent] {
        try await client.next(through: { describeListen($0) == "marker" })
    }

    private func token(_ resumeToken: String?) -> String {
        resumeToken.map { #""resumeToken":"\#($0)","# } ?? ""
    }

    private func expectAccepted(_ json: String, _ sourceLocation: SourceLocation) async throws {
        let result = try await post(json)
        #expect(result.status == 200 && result.text == "{}", "POST :listen → \(result)", sourceLocation: sourceLocation)
    }
}

/// A compact description of a listen event: `ADD 1`, `CURRENT 1`, `REMOVE 1 PERMISSION_DENIED`, `marker` (a
/// NO_CHANGE for every target), `change col/doc [1,2]`, `delete col/doc [1]`, `remove col/doc [1]`, `filter 1=3`.
@Sendable func describeListen(_ event: StreamEvent) -> String {
    guard let json = event.json else { return "unparsable: \(event.data)" }
    func ids(_ value: JSONValue?) -> String {
        "[" + (value?.arrayValue ?? []).compactMap { $0.int64Value.map(String.init) }.joined(separator: ",") + "]"
    }
    func path(_ name: String?) -> String {
        guard let name, let range = name.range(of: "/documents/") else { return name ?? "?" }
        return String(name[range.upperBound...])
    }
    if let change = json["targetChange"] {
        let kind = change["targetChangeType"]?.stringValue ?? "NO_CHANGE"
        let targets = (change["targetIds"]?.arrayValue ?? []).compactMap { $0.int64Value.map(String.init) }
        if kind == "NO_CHANGE" && targets.isEmpty { return "marker" }
        var text = kind + " " + targets.joined(separator: ",")
        if let status = change["cause"]?["status"]?.stringValue { text += " " + status }
        return text
    }
    if let change = json["documentChange"] {
        return "change \(path(change["document"]?["name"]?.stringValue)) \(ids(change["targetIds"]))"
    }
    if let delete = json["documentDelete"] {
        return "delete \(path(delete["document"]?.stringValue)) \(ids(delete["removedTargetIds"]))"
    }
    if let remove = json["documentRemove"] {
        return "remove \(path(remove["document"]?.stringValue)) \(ids(remove["removedTargetIds"]))"
    }
    if let filter = json["filter"] {
        return "filter \(filter["targetId"]?.int64Value ?? -1)=\(filter["count"]?.int64Value ?? -1)"
    }
    return "other: \(event.data)"
}

/// The resume token of a `targetChange` event, if it carries one.
func resumeToken(of event: StreamEvent) -> String? {
    event.json?["targetChange"]?["resumeToken"]?.stringValue
}

extension HearthProcess.Options {
    /// A development server whose listen streams get a heartbeat after 0.3 s of silence.
    static var fastHeartbeats: HearthProcess.Options {
        var options = HearthProcess.Options()
        options.extraArguments = ["--listen-heartbeat", "0.3"]
        return options
    }
}

extension HearthProcess {
    /// Writes a document (fields as Firestore JSON), expecting success.
    func set(
        _ path: String, _ fields: String, project: String = "demo", sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let result = try await client.request("PATCH", FS.path(path, project: project), json: FS.document(fields))
        #expect(result.status == 200, "PATCH \(path) → \(result)", sourceLocation: sourceLocation)
    }

    /// Deletes a document, expecting success.
    func delete(
        _ path: String, project: String = "demo", sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let result = try await client.request("DELETE", FS.path(path, project: project))
        #expect(result.status == 200, "DELETE \(path) → \(result)", sourceLocation: sourceLocation)
    }
}

/// `{"n":{"integerValue":"N"}}` plus more members.
func intFields(_ n: Int, _ more: String = "") -> String {
    #"{"n":{"integerValue":"\#(n)"}\#(more.isEmpty ? "" : "," + more)}"#
}
