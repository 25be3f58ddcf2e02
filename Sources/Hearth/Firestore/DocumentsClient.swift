import Foundation
import HearthCore

/// Sends Firestore REST v1 requests for one database and maps failures to ``FirestoreErrorCode``.
struct DocumentsClient: Sendable {
    let app: HearthApp
    let database: DatabaseName

    /// Sends `method` to `documents/{path}{suffix}` (`path` may be empty for the root, `suffix` is `:runQuery` …).
    func send(
        _ method: String, path: ResourcePath, suffix: String = "", query: [(String, String)] = [],
        body: JSONValue? = nil, headers extra: [String: String] = [:]
    ) async throws(FirestoreErrorCode) -> JSONValue {
        var text = app.serverURL.absoluteString.trimmingSuffix("/") + "/v1/" + database.documentsRoot
        for segment in path.segments { text += "/" + Self.escape(segment) }
        text += suffix
        if !query.isEmpty {
            text += "?" + query.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        }
        guard let url = URL(string: text) else {
            throw FirestoreErrorCode(.invalidArgument, "Cannot form a URL for \(path).")
        }
        var headers = extra
        if body != nil { headers["Content-Type"] = "application/json" }
        do {
            if let token = try await app.auth.idTokenForRequest() { headers["Authorization"] = "Bearer \(token)" }
        } catch let error as AuthErrorCode where error.code == .networkError {
            throw FirestoreErrorCode(.unavailable, "The server could not be reached: \(error.message)")
        } catch {
            throw FirestoreErrorCode(.unauthenticated, "Cannot get an ID token: \(error)")
        }
        let request = TransportRequest(
            method: method, url: url, headers: headers, body: body.map { Data($0.serialized()) })
        let response: TransportResponse
        do {
            response = try await app.transport.send(request)
        } catch {
            throw FirestoreErrorCode(
                .unavailable, "The server could not be reached (\(error.localizedDescription)); the client is offline.")
        }
        guard (200..<300).contains(response.status) else {
            throw FirestoreErrorCode(status: response.status, body: response.body)
        }
        do {
            return try JSONParser.parse(Array(response.body))
        } catch {
            throw FirestoreErrorCode(.internal, "The server's answer is not JSON: \(error)")
        }
    }

    /// Percent-encodes a path segment or query component (everything outside RFC 3986's unreserved set, plus
    /// the parentheses of `(default)` kept as they are).
    static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~()")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// A REST `Document` (`name`, `fields`, `createTime`, `updateTime`) as its path and fields.
    func document(_ json: JSONValue) throws(FirestoreErrorCode) -> StoredDocument {
        guard let name = json["name"]?.stringValue else {
            throw FirestoreErrorCode(.internal, "A document in the answer has no name.")
        }
        do {
            let path = try database.path(fromName: name)
            let fields = try Value.decodeStoredFields(json["fields"] ?? .object([:]))
            let update = json["updateTime"]?.stringValue.flatMap(HearthCore.Timestamp.init(rfc3339:))
            let create = json["createTime"]?.stringValue.flatMap(HearthCore.Timestamp.init(rfc3339:))
            return StoredDocument(path: path, fields: fields, createTime: create, updateTime: update)
        } catch {
            throw FirestoreErrorCode(error)
        }
    }

    /// A write as REST `Write` JSON.
    func json(_ write: Write) -> JSONValue {
        var members: [String: JSONValue] = [:]
        let name = JSONValue.string(database.name(of: write.path))
        switch write.operation {
        case .delete:
            members["delete"] = name
        case .update(let fields, let mask):
            members["update"] = ["name": name, "fields": Self.json(fields)]
            if let mask { members["updateMask"] = ["fieldPaths": .array(mask.map { .string($0.description) })] }
        case .transform:
            members["transform"] = ["document": name]
        }
        if !write.transforms.isEmpty {
            members["updateTransforms"] = .array(write.transforms.map(Self.json))
        }
        switch write.precondition {
        case .exists(let flag)?: members["currentDocument"] = ["exists": .bool(flag)]
        case .updateTime(let time)?: members["currentDocument"] = ["updateTime": .string(time.rfc3339)]
        case nil: break
        }
        return .object(members)
    }

    static func json(_ transform: FieldTransform) -> JSONValue {
        var members: [String: JSONValue] = ["fieldPath": .string(transform.fieldPath.description)]
        switch transform.kind {
        case .serverTimestamp: members["setToServerValue"] = "REQUEST_TIME"
        case .increment(let value): members["increment"] = json(value)
        case .maximum(let value): members["maximum"] = json(value)
        case .minimum(let value): members["minimum"] = json(value)
        case .appendMissingElements(let values): members["appendMissingElements"] = ["values": .array(values.map(json))]
        case .removeAllFromArray(let values): members["removeAllFromArray"] = ["values": .array(values.map(json))]
        }
        return .object(members)
    }

    /// Typed Firestore JSON for a value, through HearthCore's encoder so client and server agree byte for byte.
    static func json(_ value: Value) -> JSONValue {
        var bytes: [UInt8] = []
        value.appendFirestoreJSON(to: &bytes)
        return (try? JSONParser.parse(bytes)) ?? .null
    }

    /// Typed Firestore JSON for a map of fields.
    static func json(_ fields: [String: Value]) -> JSONValue {
        (try? JSONParser.parse(Value.encodeFields(fields))) ?? .object([:])
    }

    /// Sends writes in one `:commit` (optionally in a transaction) and returns the per-write results.
    @discardableResult
    func commit(_ writes: [Write], transaction: String? = nil) async throws(FirestoreErrorCode) -> JSONValue {
        var body: [String: JSONValue] = ["writes": .array(writes.map(json))]
        if let transaction { body["transaction"] = .string(transaction) }
        let result = try await send("POST", path: .root, suffix: ":commit", body: .object(body))
        // The server's result (transforms applied) is not sent back, so cached copies of written documents are
        // dropped rather than left stale; the next read caches them again.
        for write in writes { app.firestore(database: database.database).cache.remove(write.path) }
        return result
    }
}

/// A document as read from the server.
struct StoredDocument: Sendable, Equatable {
    var path: ResourcePath
    var fields: [String: Value]
    var createTime: HearthCore.Timestamp?
    var updateTime: HearthCore.Timestamp?
}
