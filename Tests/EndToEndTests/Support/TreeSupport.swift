import Foundation
import HearthCore
import HearthTesting
import Testing

/// Helpers for the tree (Realtime Database REST) end-to-end tests. Tests share one server and keep apart by writing
/// under a unique top-level key, or in a unique namespace when they touch the root.
enum Tree {
    /// A fresh key, e.g. `rest-1a2b3c4d`.
    static func unique(_ label: String) -> String { "\(label)-\(UUID().uuidString.prefix(8).lowercased())" }

    /// JSON from text known to be valid.
    static func json(_ text: String) -> JSONValue { try! JSONParser.parse(text) }
}

extension HTTPClient {
    /// A tree request: `method /{path}.json` with an optional JSON body, `ns` and other query parameters.
    func tree(
        _ method: String, _ path: String, _ body: String? = nil, ns: String? = nil, query: [(String, String)] = [],
        headers: [String: String] = [:]
    ) async throws -> HTTPResult {
        var query = query
        if let ns { query.append(("ns", ns)) }
        let encoded = path.split(separator: "/").map { HTTPClient.encodeQuery(String($0)) }.joined(separator: "/")
        return try await request(
            method, "/" + encoded + ".json", query: query, body: body.map { Array($0.utf8) }, headers: headers)
    }

    /// The value at `path` (expects 200).
    func treeValue(
        _ path: String, ns: String? = nil, query: [(String, String)] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        try expectOK(await tree("GET", path, ns: ns, query: query), sourceLocation: sourceLocation)
    }

    /// PUTs JSON text at `path` (expects 200) and returns the echoed value.
    @discardableResult
    func treePut(
        _ path: String, _ body: String, ns: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        try expectOK(await tree("PUT", path, body, ns: ns), sourceLocation: sourceLocation)
    }
}

/// Expects a Realtime Database error: the status and `{"error": "…"}` containing `fragment`.
func expectTreeError(
    _ result: HTTPResult, _ status: Int, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
    let message = (try? JSONParser.parse(result.body))?["error"]?.stringValue
    #expect(
        message?.contains(fragment) == true, "expected an error containing \(fragment): \(result)",
        sourceLocation: sourceLocation)
}

extension HearthProcess {
    /// A streaming connection to `/{path}.json`.
    func stream(
        _ path: String, ns: String? = nil, query: [(String, String)] = [], headers: [String: String] = [:]
    ) throws -> EventStreamClient {
        var query = query
        if let ns { query.append(("ns", ns)) }
        let encoded = path.split(separator: "/").map { HTTPClient.encodeQuery(String($0)) }.joined(separator: "/")
        return try EventStreamClient(
            port: port, path: "/" + encoded + ".json", query: query, headers: headers.map { ($0.key, $0.value) })
    }
}
