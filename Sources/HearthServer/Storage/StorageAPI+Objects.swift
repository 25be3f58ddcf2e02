import Foundation
import HearthCore
import HearthHTTP
import HearthRules
import HearthStorage

extension StorageAPI {
    /// `GET …/o/{name}`: the metadata JSON.
    func metadata(_ request: HTTPRequest, _ bucket: String, _ name: String) throws(HearthError) -> HTTPResponse {
        let object = try store.object(bucket: bucket, name: name)
        try access.check(request, .get, bucket: bucket, name: name, existing: object)
        guard let object else { throw StorageAPIErrors.notFound(name) }
        return StorageJSON.response(object)
    }

    /// `GET …/o/{name}?alt=media`: the bytes, from the file. A valid `token` bypasses access checks, as Firebase's
    /// download URLs do; a `token` that does not open the object counts as none, so the caller's credential and the
    /// rules decide, as the Storage emulator does (pyrebase sends the ID token there as well as in `Authorization`).
    /// `If-None-Match` on the current etag answers 304; `Range` answers 206.
    func download(_ request: HTTPRequest, _ bucket: String, _ name: String) throws(HearthError) -> HTTPResponse {
        let object: StoredObject
        let found = try store.object(bucket: bucket, name: name)
        if let token = request.queryValue("token"), let found, found.downloadTokens.contains(token) {
            object = found
        } else {
            try access.check(request, .get, bucket: bucket, name: name, existing: found)
            guard let found else { throw StorageAPIErrors.notFound(name) }
            object = found
        }
        var headers: HTTPHeaders = [
            ("Content-Type", object.attributes.contentType ?? StorageJSON.defaultContentType),
            ("ETag", "\"\(object.etag)\""),
            // The bytes are whoever uploaded them, served on the origin of the console and the APIs: an HTML page
            // among them must not run as that origin, where it could read the console's page (its CSRF token) and
            // act as the admin. Sandboxed, a page still shows and runs its scripts, but in an origin of its own.
            ("Content-Security-Policy", "sandbox allow-scripts allow-forms allow-popups allow-downloads"),
        ]
        let attributes = object.attributes
        if let value = attributes.cacheControl { headers.add(name: "Cache-Control", value: value) }
        if let value = attributes.contentDisposition { headers.add(name: "Content-Disposition", value: value) }
        if let value = attributes.contentEncoding { headers.add(name: "Content-Encoding", value: value) }
        if let value = attributes.contentLanguage { headers.add(name: "Content-Language", value: value) }
        if let tags = request.headers["If-None-Match"], Self.matches(tags, etag: object.etag) {
            headers.remove(name: "Content-Type")
            return HTTPResponse(status: 304, headers: headers)
        }
        let descriptor = try store.openBytes(of: object)
        return .file(
            descriptor: descriptor, size: UInt64(object.size), range: request.headers["Range"], headers: headers)
    }

    /// `PATCH …/o/{name}`: sets the metadata fields in the JSON body.
    func update(_ request: HTTPRequest, _ bucket: String, _ name: String) throws(HearthError) -> HTTPResponse {
        let fields = try Self.jsonObject(request.body)
        let current = try existing(bucket, name)
        var changed = current.attributes
        try changed.apply(fields)
        try access.check(
            request, .update, bucket: bucket, name: name, existing: current,
            incoming: StorageAccess.incoming(bucket: bucket, name: name, size: Int(current.size), attributes: changed))
        let object = try store.updateMetadata(bucket: bucket, name: name) { object throws(HearthError) in
            try object.attributes.apply(fields)
        }
        return StorageJSON.response(object)
    }

    /// `DELETE …/o/{name}`: 204, or 404 when there is no such object.
    func delete(_ request: HTTPRequest, _ bucket: String, _ name: String) throws(HearthError) -> HTTPResponse {
        let current = try store.object(bucket: bucket, name: name)
        try access.check(request, .delete, bucket: bucket, name: name, existing: current)
        guard try store.delete(bucket: bucket, name: name) else { throw StorageAPIErrors.notFound(name) }
        return HTTPResponse(status: 204)
    }

    /// `POST …/o/{name}?create_token=true` or `?delete_token=T`.
    func tokens(_ request: HTTPRequest, _ bucket: String, _ name: String) throws(HearthError) -> HTTPResponse {
        let current = try existing(bucket, name)
        try access.check(
            request, .update, bucket: bucket, name: name, existing: current,
            incoming: StorageAccess.rulesObject(current))
        if request.queryValue("create_token") == "true" {
            return StorageJSON.response(try store.createToken(bucket: bucket, name: name))
        }
        if let token = request.queryValue("delete_token") {
            return StorageJSON.response(try store.deleteToken(token, bucket: bucket, name: name))
        }
        throw .invalidArgument("POST on an object needs ?create_token=true or ?delete_token=TOKEN.")
    }

    /// `GET …/o?prefix=&delimiter=&maxResults=&pageToken=`.
    func list(_ request: HTTPRequest, _ route: StorageRoute) throws(HearthError) -> HTTPResponse {
        let prefix = request.queryValue("prefix") ?? ""
        try access.check(request, .list, bucket: route.bucket, name: prefix)
        var maxResults = FileStore.maxListResults
        if let text = request.queryValue("maxResults") {
            guard let value = Int(text), value > 0 else {
                throw .invalidArgument("maxResults must be a positive integer, not \(text.prefix(50)).")
            }
            maxResults = min(value, FileStore.maxListResults)
        }
        let listing = try store.list(
            bucket: route.bucket, prefix: prefix, delimiter: request.queryValue("delimiter"), maxResults: maxResults,
            pageToken: request.queryValue("pageToken"))
        return StorageJSON.listing(listing, bucket: route.bucket)
    }

    func existing(_ bucket: String, _ name: String) throws(HearthError) -> StoredObject {
        guard let object = try store.object(bucket: bucket, name: name) else { throw StorageAPIErrors.notFound(name) }
        return object
    }

    /// Whether an `If-None-Match` list names `etag` (quoted or not, weak or strong) or is `*`.
    static func matches(_ tags: String, etag: String) -> Bool {
        tags.split(separator: ",").contains { tag in
            var text = tag.trimmingCharacters(in: .whitespaces)
            if text == "*" { return true }
            if text.hasPrefix("W/") { text.removeFirst(2) }
            return text == etag || text == "\"\(etag)\""
        }
    }

    /// The JSON object in `body`; an empty body is `{}`.
    static func jsonObject(_ body: [UInt8]) throws(HearthError) -> [String: JSONValue] {
        guard !body.isEmpty else { return [:] }
        guard let object = (try? JSONParser.parse(body))?.objectValue else {
            throw .invalidArgument("The request body must be a JSON object of metadata fields.")
        }
        return object
    }
}

enum StorageAPIErrors {
    static func notFound(_ name: String) -> HearthError {
        .notFound("Not Found. Could not find object \(name.prefix(200)).")
    }
}
