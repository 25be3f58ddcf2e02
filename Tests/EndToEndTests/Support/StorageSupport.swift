import Foundation
import HearthCore
import HearthTesting
import Testing

/// Firebase Storage v0 paths and calls for the storage end-to-end tests.
enum Storage {
    static let bucket = "demo.appspot.com"

    /// `/v0/b/{bucket}/o`.
    static func objects(_ bucket: String = bucket) -> String { "/v0/b/\(bucket)/o" }

    /// `/v0/b/{bucket}/o/{name}` with the name percent-encoded as one segment, as Firebase's clients send it.
    static func object(_ name: String, bucket: String = bucket) -> String {
        objects(bucket) + "/" + HTTPClient.encodeQuery(name)
    }

    static func unique(_ label: String) -> String { "\(label)-\(UUID().uuidString.prefix(8).lowercased())" }

    /// The storage directory's `blobs/` and `tmp/` entries.
    static func files(_ server: HearthProcess) -> (blobs: [String], tmp: [String]) {
        let root = server.dataDirectory.path + "/storage"
        let list = { (name: String) in ((try? FileManager.default.contentsOfDirectory(atPath: root + "/" + name)) ?? [])
        }
        return (list("blobs"), list("tmp"))
    }
}

extension HTTPClient {
    /// A media upload: the body is the file.
    func upload(
        _ name: String, _ bytes: [UInt8], contentType: String = "application/octet-stream",
        bucket: String = Storage.bucket, headers: [String: String] = [:]
    ) async throws -> HTTPResult {
        var all = headers
        all["Content-Type"] = contentType
        return try await request("POST", Storage.objects(bucket), query: [("name", name)], body: bytes, headers: all)
    }

    /// Starts a resumable session and returns its upload URL's path and query.
    func startResumable(
        _ name: String, metadata: String = "{}", headers: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        var all = headers
        all["X-Goog-Upload-Protocol"] = "resumable"
        all["X-Goog-Upload-Command"] = "start"
        let started = try await request(
            "POST", Storage.objects(), query: [("name", name)], json: metadata, headers: all)
        #expect(started.status == 200, "\(started)", sourceLocation: sourceLocation)
        #expect(started.headers["x-goog-upload-status"] == "active", sourceLocation: sourceLocation)
        let url = try #require(started.headers["x-goog-upload-url"], sourceLocation: sourceLocation)
        return String(url.dropFirst(baseURL.count))
    }

    /// One resumable command on a session URL (`upload`, `upload, finalize`, `query`, `cancel`).
    func resumable(
        _ url: String, _ command: String, offset: Int? = nil, body: [UInt8]? = nil, headers: [String: String] = [:]
    ) async throws -> HTTPResult {
        var all = headers
        all["X-Goog-Upload-Protocol"] = "resumable"
        all["X-Goog-Upload-Command"] = command
        if let offset { all["X-Goog-Upload-Offset"] = String(offset) }
        all["Content-Type"] = "application/octet-stream"
        return try await request("POST", url, body: body ?? [], headers: all)
    }
}

/// Bytes 0, 1, …, 255, 0, 1, … so a misplaced range or chunk shows.
func patternBytes(_ count: Int, seed: Int = 0) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) }
}

/// Checks a Storage error: the HTTP status, and google.rpc's envelope with the same code and a message.
func expectStorageError(
    _ result: HTTPResult, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
    let error = (try? JSONParser.parse(result.body))?["error"]
    #expect(error?["code"] == .integer(Int64(status)), "\(result)", sourceLocation: sourceLocation)
    #expect((error?["message"]?.stringValue ?? "").count >= 10, "\(result)", sourceLocation: sourceLocation)
}
