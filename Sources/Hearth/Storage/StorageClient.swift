import Foundation
import HearthCore

/// The HTTP side of one reference's calls: URLs of the v0 API, the signed-in user's ID token as
/// `Authorization: Firebase <token>` (what Firebase's Storage clients send), and the server's answers as
/// ``StorageError``s.
struct StorageClient: Sendable {
    let reference: StorageReference

    var app: HearthApp { reference.storage.app }

    /// `{server}/v0/b/{bucket}/o` with `query`.
    func objectsURL(_ query: [(String, String)] = []) -> URL {
        url("/v0/b/\(StoragePath.encoded(reference.bucket))/o", query)
    }

    /// `{server}/v0/b/{bucket}/o/{name}` with `query`, the name as one percent-encoded segment.
    func objectURL(_ query: [(String, String)] = []) -> URL {
        url("/v0/b/\(StoragePath.encoded(reference.bucket))/o/\(StoragePath.encoded(reference.fullPath))", query)
    }

    private func url(_ path: String, _ query: [(String, String)]) -> URL {
        var text = app.serverURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += path
        if !query.isEmpty {
            text += "?" + query.map { "\($0.0)=\(StoragePath.encoded($0.1))" }.joined(separator: "&")
        }
        return URL(string: text) ?? app.serverURL
    }

    /// The credential header, when someone is signed in.
    func authorization() async throws -> [String: String] {
        do {
            guard let token = try await app.auth.idTokenForRequest() else { return [:] }
            return ["Authorization": "Firebase \(token)"]
        } catch let error as AuthErrorCode where error.code == .networkError {
            throw unreachable(error.message)
        } catch {
            throw reference.error(.unauthenticated, "The session's ID token could not be refreshed: \(error)")
        }
    }

    /// Sends a request with the credential; a non-2xx answer throws its ``StorageError``.
    func send(
        _ method: String, _ url: URL, headers extra: [String: String] = [:], body: Data? = nil
    ) async throws -> TransportResponse {
        let headers = try await authorization().merging(extra) { _, added in added }
        let response: TransportResponse
        do {
            response = try await app.transport.send(
                TransportRequest(method: method, url: url, headers: headers, body: body))
        } catch {
            throw unreachable(error.localizedDescription)
        }
        guard (200..<300).contains(response.status) else {
            throw failure(status: response.status, body: response.body)
        }
        return response
    }

    /// The JSON of an answer's body.
    func json(_ response: TransportResponse) throws -> JSONValue {
        guard let json = try? JSONParser.parse(Array(response.body)) else {
            throw reference.error(.unknown, "Invalid data returned from the server.")
        }
        return json
    }

    /// The object's metadata from an answer's JSON.
    func metadata(_ json: JSONValue) -> StorageMetadata {
        let fields = StorageMetadataFields(json: json)
        let path = StoragePath(
            bucket: fields.bucket.isEmpty ? reference.bucket : fields.bucket, object: fields.path ?? "")
        return StorageMetadata(fields: fields, reference: StorageReference(storage: reference.storage, path: path))
    }

    /// `GET …/o/{name}`.
    func fetchMetadata() async throws -> StorageMetadata {
        metadata(try json(try await send("GET", objectURL())))
    }

    /// The server's refusal as Firebase reports it: 401 `unauthenticated`, 403 `unauthorized`, 404
    /// `objectNotFound` (or `bucketNotFound`), 402 and 429 `quotaExceeded`, anything else `unknown`, each with the
    /// server's message.
    func failure(status: Int, body: Data) -> StorageError {
        let json = try? JSONParser.parse(Array(body))
        let detail = json?["error"]?["message"]?.stringValue ?? String(decoding: body.prefix(500), as: UTF8.self)
        let code: StorageErrorCode =
            switch status {
            case 401: .unauthenticated
            case 402, 429: .quotaExceeded
            case 403: .unauthorized
            case 404: detail.hasPrefix("Bucket") ? .bucketNotFound : .objectNotFound
            default: .unknown
            }
        return failure(code, detail: detail)
    }

    /// An error of `code` with Firebase's wording and the server's `detail`.
    func failure(_ code: StorageErrorCode, detail: String) -> StorageError {
        let location = "gs://\(reference.bucket)/\(reference.fullPath)"
        let message: String =
            switch code {
            case .unauthenticated: "User is not authenticated, please authenticate and try again."
            case .unauthorized: "User does not have permission to access \(location)."
            case .objectNotFound: "Object \(reference.fullPath) does not exist."
            case .bucketNotFound: "Bucket \(reference.bucket) does not exist."
            case .quotaExceeded: "Quota for bucket \(reference.bucket) exceeded."
            default: "An unknown error occurred, please check the server response."
            }
        return reference.error(code, detail.isEmpty ? message : "\(message) (\(detail))")
    }

    /// The network lost the request.
    func unreachable(_ detail: String) -> StorageError {
        var error = reference.error(.unknown, "The server could not be reached: \(detail)")
        error.unreachable = true
        return error
    }
}
