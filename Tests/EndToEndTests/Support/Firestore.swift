import Foundation
import HearthCore
import HearthTesting
import Testing

/// Firestore REST v1 URLs, names and assertions.
enum FS {
    /// `/v1/projects/{project}/databases/(default)/documents`.
    static func root(_ project: String = "demo", database: String = "(default)") -> String {
        "/v1/projects/\(project)/databases/\(database)/documents"
    }

    /// The URL path of a document or collection relative to the documents root (`users/a`).
    static func path(_ relative: String, project: String = "demo") -> String { "\(root(project))/\(relative)" }

    /// The resource name of a document (`projects/demo/databases/(default)/documents/users/a`).
    static func name(_ relative: String, project: String = "demo", database: String = "(default)") -> String {
        "projects/\(project)/databases/\(database)/documents/\(relative)"
    }

    /// A collection ID unique to this run, so tests that share a server never collide.
    static func unique(_ label: String) -> String {
        "\(label)_\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// Parses a JSON literal written in a test.
    static func json(_ text: String) -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            fatalError("Test JSON literal does not parse: \(error)\n\(text)")
        }
    }

    /// Replaces every `timestampValue` by its canonical form, so two spellings of one instant compare equal, and
    /// reads every numeric `doubleValue` as a double (the parser reads `-0` or `1` as an integer).
    static func canonicalTimestamps(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            var out: [String: JSONValue] = [:]
            for (key, member) in members {
                if key == "timestampValue", case .string(let text) = member, let time = Timestamp(rfc3339: text) {
                    out[key] = .string(time.rfc3339)
                } else if key == "doubleValue", case .integer(let number) = member {
                    out[key] = .double(Double(number))
                } else {
                    out[key] = canonicalTimestamps(member)
                }
            }
            return .object(out)
        case .array(let items): return .array(items.map(canonicalTimestamps))
        default: return value
        }
    }

    /// Parses an RFC 3339 time from a response.
    static func time(_ value: JSONValue?, sourceLocation: SourceLocation = #_sourceLocation) throws -> Timestamp {
        let text = try #require(
            value?.stringValue, "expected an RFC 3339 string, got \(String(describing: value))",
            sourceLocation: sourceLocation)
        return try #require(Timestamp(rfc3339: text), "not an RFC 3339 time: \(text)", sourceLocation: sourceLocation)
    }

    /// A document body `{"fields": …}` from a fields JSON literal.
    static func document(_ fields: String) -> String { #"{"fields":\#(fields)}"# }

    /// The last path segment of a document name.
    static func id(of name: String) -> String { String(name.split(separator: "/").last ?? "") }
}

/// Compares JSON and, on a mismatch, reports the members that differ as compact JSON.
func expectJSON(
    _ actual: JSONValue?, _ expected: JSONValue, _ comment: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let actual else {
        Issue.record("missing; expected \(expected.jsonString) \(comment)", sourceLocation: sourceLocation)
        return
    }
    guard actual != expected else { return }
    if case .object(let got) = actual, case .object(let want) = expected {
        var lines: [String] = []
        for key in Set(got.keys).union(want.keys).sorted() where got[key] != want[key] {
            lines.append(
                "  \(key): got \(got[key]?.jsonString ?? "nothing"), expected \(want[key]?.jsonString ?? "nothing")")
        }
        Issue.record(
            "JSON objects differ \(comment):\n\(lines.joined(separator: "\n"))", sourceLocation: sourceLocation)
    } else {
        Issue.record(
            "got \(actual.jsonString.prefix(2000)), expected \(expected.jsonString.prefix(2000)) \(comment)",
            sourceLocation: sourceLocation)
    }
}

/// Checks a google.rpc.Status error body: `{"error":{"code":<status>,"message":"…","status":"<name>"}}`.
@discardableResult
func expectError(
    _ result: HTTPResult, _ httpStatus: Int, _ status: String, messageContains fragments: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation
) -> String {
    #expect(result.status == httpStatus, "\(result)", sourceLocation: sourceLocation)
    #expect(
        result.headers["content-type"]?.hasPrefix("application/json") == true,
        "content-type \(result.headers["content-type"] ?? "none")", sourceLocation: sourceLocation)
    guard let body = try? JSONParser.parse(result.body), case .object(let top) = body, let error = top["error"] else {
        Issue.record("Not a google.rpc.Status error body: \(result)", sourceLocation: sourceLocation)
        return ""
    }
    #expect(top.count == 1, "unexpected members beside error: \(result)", sourceLocation: sourceLocation)
    #expect(error["code"] == .integer(Int64(httpStatus)), "\(result)", sourceLocation: sourceLocation)
    #expect(error["status"] == .string(status), "\(result)", sourceLocation: sourceLocation)
    let message = error["message"]?.stringValue ?? ""
    #expect(message.count >= 10, "the message should say what is wrong: \(result)", sourceLocation: sourceLocation)
    for fragment in fragments {
        #expect(
            message.contains(fragment), "message should mention \"\(fragment)\": \(message)",
            sourceLocation: sourceLocation)
    }
    return message
}

/// Expects a 200 with a JSON body and returns it.
@discardableResult
func expectOK(_ result: HTTPResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
    #expect(result.status == 200, "\(result)", sourceLocation: sourceLocation)
    guard result.status == 200 else { throw HarnessError("expected 200: \(result)") }
    return try result.json(sourceLocation: sourceLocation)
}

extension HTTPClient {
    /// Creates `collection/id` with a fields JSON literal and returns the document JSON.
    @discardableResult
    func create(
        _ collection: String, id: String? = nil, fields: String = "{}", project: String = "demo",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let query = id.map { [("documentId", $0)] } ?? []
        return try expectOK(
            try await request("POST", FS.path(collection, project: project), query: query, json: FS.document(fields)),
            sourceLocation: sourceLocation)
    }

    /// GETs a document (`collection/id`), returning the response.
    func document(_ relative: String, query: [(String, String)] = []) async throws -> HTTPResult {
        try await get(FS.path(relative), query: query)
    }

    /// The `fields` of an existing document (`{}` when it has none).
    func fields(_ relative: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JSONValue {
        let body = try expectOK(try await document(relative), sourceLocation: sourceLocation)
        return body["fields"] ?? .object([:])
    }

    /// POSTs `:commit` with a writes JSON literal.
    func commit(_ writes: String) async throws -> HTTPResult {
        try await request("POST", "\(FS.root()):commit", json: #"{"writes":\#(writes)}"#)
    }

    /// Every document of a collection, following page tokens; `extra` query parameters go with every page.
    func listAll(
        _ collection: String, pageSize: Int, orderBy: String? = nil, extra: [(String, String)] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (names: [String], pages: Int, documents: [JSONValue]) {
        var all: [JSONValue] = []
        var token: String?
        var pages = 0
        repeat {
            var query = [("pageSize", String(pageSize))] + extra
            if let orderBy { query.append(("orderBy", orderBy)) }
            if let token { query.append(("pageToken", token)) }
            let body = try expectOK(try await get(FS.path(collection), query: query), sourceLocation: sourceLocation)
            let documents = body["documents"]?.arrayValue ?? []
            #expect(documents.count <= pageSize, sourceLocation: sourceLocation)
            all += documents
            token = body["nextPageToken"]?.stringValue
            pages += 1
            if pages > 10_000 { throw HarnessError("paging does not end") }
        } while token != nil && token != ""
        return (all.compactMap { $0["name"]?.stringValue }, pages, all)
    }
}
