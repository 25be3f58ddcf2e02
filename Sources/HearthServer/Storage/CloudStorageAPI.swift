import Dispatch
import HearthCore
import HearthHTTP
import HearthRules
import HearthStorage

/// The part of the Cloud Storage JSON API that `google-cloud-storage` and the Admin SDKs use with
/// `STORAGE_EMULATOR_HOST`: `/upload/storage/v1/b/{b}/o` (media, multipart, resumable),
/// `/download/storage/v1/b/{b}/o/{o}`, and `/storage/v1/b/{b}/o[/{o}]` (get, `alt=media`, patch, delete, list,
/// `copyTo`, `rewriteTo`). A server API: only the admin credential may call it, or anyone in `--dev` (where the
/// emulator's clients send no credential); rules do not apply, as they do not to the Admin SDKs.
struct CloudStorageAPI: API, StreamingAPI {
    let storage: StorageAPI

    private var store: FileStore { storage.store }

    /// The parsed path: which kind of call, the bucket, the object name (and a copy's destination).
    private struct Route {
        enum Kind { case upload, download, objects, bucket }
        var kind: Kind
        var bucket: String
        var name: String?
        var verb: String?
        var destination: (bucket: String, name: String)?
    }

    private func parse(_ path: String) -> Route? {
        let prefixes: [(String, Route.Kind)] = [
            ("/upload/storage/v1/b/", .upload), ("/download/storage/v1/b/", .download), ("/storage/v1/b/", .objects),
        ]
        guard let (prefix, kind) = prefixes.first(where: { path.hasPrefix($0.0) }) else { return nil }
        let rest = path.dropFirst(prefix.count)
        guard let slash = rest.firstIndex(of: "/") else {
            return kind == .objects && !rest.isEmpty ? Route(kind: .bucket, bucket: String(rest)) : nil
        }
        let bucket = String(rest[..<slash])
        let tail = rest[rest.index(after: slash)...]
        if tail == "o" || tail == "o/" { return Route(kind: kind, bucket: bucket) }
        guard tail.hasPrefix("o/") else { return nil }
        var name = String(tail.dropFirst(2))
        var route = Route(kind: kind, bucket: bucket)
        for verb in ["copyTo", "rewriteTo"] {
            guard let marker = name.range(of: "/\(verb)/b/") else { continue }
            let target = name[marker.upperBound...]
            guard let split = target.range(of: "/o/") else { return nil }
            route.verb = verb
            route.destination = (String(target[..<split.lowerBound]), String(target[split.upperBound...]))
            name = String(name[..<marker.lowerBound])
        }
        route.name = name
        return route
    }

    private func origin(_ request: HTTPRequest) -> String {
        StorageAPI.origin(request, listening: "\(storage.configuration.host):\(storage.configuration.port)")
    }

    /// The admin credential, or `--dev`.
    private func requireAdmin(_ request: HTTPRequest) throws(HearthError) {
        let auth = try storage.access.authenticator.authenticate(request)
        guard auth?.isAdmin == true || storage.configuration.devMode else {
            throw HearthError(
                .permissionDenied, "The Cloud Storage JSON API needs the admin credential (or --dev).")
        }
    }

    // MARK: - Streamed uploads

    func bodyPlan(for request: HTTPRequest) -> (route: String, plan: HTTPBodyPlan)? {
        guard let route = parse(request.path), route.kind == .upload, route.name == nil else { return nil }
        let type = request.queryValue("uploadType")
        let isMedia = request.method == "POST" && type == "media"
        let isMultipart = request.method == "POST" && type == "multipart"
        let isChunk = request.method == "PUT" && request.queryValue("upload_id") != nil
        guard isMedia || isMultipart || isChunk else { return nil }
        do throws(HearthError) {
            try requireAdmin(request)
            if isMedia {
                guard let name = request.queryValue("name"), !name.isEmpty else {
                    throw .invalidArgument("A media upload needs ?name=.")
                }
                try ObjectName.validate(name)
                let target = ObjectUploadSink.Target(
                    name: name, attributes: ObjectAttributes(contentType: request.headers["Content-Type"]))
                let sink = try ObjectUploadSink(
                    store: store, bucket: route.bucket, target: target, work: storage.work,
                    answers: CloudStorageJSON.answers(origin: origin(request)), judge: ObjectUploadSink.unjudged)
                return ("gcs.upload.media", .streamed(sink))
            }
            if isMultipart {
                let sink = try ObjectUploadSink(
                    multipart: request, store: store, bucket: route.bucket, work: storage.work,
                    answers: CloudStorageJSON.answers(origin: origin(request)), judge: ObjectUploadSink.unjudged)
                return ("gcs.upload.multipart", .streamed(sink))
            }
            return ("gcs.upload.resumable", try chunkPlan(request, route))
        } catch {
            return ("gcs.upload", .reject(Responses.error(error)))
        }
    }

    /// A `PUT` to a session URL with `Content-Range: bytes A-B/TOTAL` (or `*/TOTAL` to ask where it stands).
    private func chunkPlan(_ request: HTTPRequest, _ route: Route) throws(HearthError) -> HTTPBodyPlan {
        guard let id = request.queryValue("upload_id"), let session = try store.session(id),
            session.bucket == route.bucket
        else { throw .notFound("No live upload session with this upload_id.") }
        let range = request.headers["Content-Range"] ?? ""
        guard range.hasPrefix("bytes ") else { throw .invalidArgument("A chunk needs Content-Range: bytes A-B/TOTAL.") }
        let spec = range.dropFirst("bytes ".count).split(separator: "/", maxSplits: 1)
        guard spec.count == 2 else { throw .invalidArgument("Content-Range must be bytes A-B/TOTAL or bytes */TOTAL.") }
        let total = Int64(spec[1])
        var end = session.received
        if spec[0] != "*" {
            let bounds = spec[0].split(separator: "-")
            guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), last >= first else {
                throw .invalidArgument("Content-Range must be bytes A-B/TOTAL.")
            }
            guard first == session.received else {
                // Where to resume from, as Cloud Storage answers a chunk that does not start there.
                return .reject(CloudStorageJSON.answers(origin: origin(request)).progress(session.received))
            }
            end = last + 1
        }
        let sink = try ResumableChunkSink(
            store: store, session: session, finalize: total != nil && total == end, work: storage.work,
            answers: CloudStorageJSON.answers(origin: origin(request)), finalCheck: { _ throws(HearthError) in })
        return .streamed(sink)
    }

    // MARK: - Buffered calls

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        guard let route = parse(request.path) else { return nil }
        do throws(HearthError) {
            try requireAdmin(request)
            if request.bodyTooLarge {
                throw .invalidArgument(
                    "Request payload size exceeds the limit: \(storage.configuration.maxBodyBytes) bytes.")
            }
            return try dispatch(request, route)
        } catch {
            return ("gcs", .response(Responses.error(error)))
        }
    }

    private func dispatch(_ request: HTTPRequest, _ route: Route) throws(HearthError) -> (String, HTTPReply) {
        let origin = origin(request)
        switch (route.kind, request.method, route.name) {
        case (.bucket, "GET", _):
            let fields: JSONValue = [
                "kind": "storage#bucket", "name": .string(route.bucket), "id": .string(route.bucket),
            ]
            return ("gcs.bucket", .response(Responses.json(fields.serialized())))
        case (.upload, "POST", nil):
            return ("gcs.upload", try upload(request, route, origin: origin))
        case (.download, "GET", let name?):
            return ("gcs.download", .response(try download(request, route.bucket, name)))
        case (.objects, "GET", let name?) where request.queryValue("alt") == "media":
            return ("gcs.download", .response(try download(request, route.bucket, name)))
        case (.objects, "GET", let name?):
            return ("gcs.get", .response(CloudStorageJSON.response(try existing(route.bucket, name), origin: origin)))
        case (.objects, "GET", nil):
            return ("gcs.list", .response(try list(request, route, origin: origin)))
        case (.objects, "PATCH", let name?), (.objects, "PUT", let name?):
            var fields = try StorageAPI.jsonObject(request.body)
            // The Admin SDKs keep download tokens in the custom metadata; they stay tokens here.
            if case .object(var custom)? = fields["metadata"] {
                custom["firebaseStorageDownloadTokens"] = nil
                fields["metadata"] = .object(custom)
            }
            let changes = fields
            let object = try store.updateMetadata(bucket: route.bucket, name: name) { object throws(HearthError) in
                try object.attributes.apply(changes)
            }
            return ("gcs.patch", .response(CloudStorageJSON.response(object, origin: origin)))
        case (.objects, "DELETE", let name?):
            guard try store.delete(bucket: route.bucket, name: name) else { throw StorageAPIErrors.notFound(name) }
            return ("gcs.delete", .response(HTTPResponse(status: 204)))
        case (.objects, "POST", let name?) where route.verb != nil:
            return ("gcs.\(route.verb!)", .response(try copy(request, route, name, origin: origin)))
        default:
            throw storage.methodNotAllowed(request.method, request.path, "the Cloud Storage JSON API's object calls")
        }
    }

    /// The bytes, with the checksums `google-cloud-storage` verifies the download against.
    private func download(
        _ request: HTTPRequest, _ bucket: String, _ name: String
    ) throws(HearthError)
        -> HTTPResponse
    {
        let object = try existing(bucket, name)
        var response = try storage.download(request, bucket, name)
        response.headers.add(name: "X-Goog-Hash", value: "crc32c=\(object.crc32c),md5=\(object.md5Hash)")
        response.headers.add(name: "X-Goog-Generation", value: String(object.generation))
        return response
    }

    private func existing(_ bucket: String, _ name: String) throws(HearthError) -> StoredObject {
        try storage.existing(bucket, name)
    }

    private func list(_ request: HTTPRequest, _ route: Route, origin: String) throws(HearthError) -> HTTPResponse {
        var maxResults = FileStore.maxListResults
        if let text = request.queryValue("maxResults") {
            guard let value = Int(text), value > 0 else { throw .invalidArgument("maxResults must be positive.") }
            maxResults = value
        }
        let listing = try store.list(
            bucket: route.bucket, prefix: request.queryValue("prefix") ?? "",
            delimiter: request.queryValue("delimiter"),
            maxResults: maxResults, pageToken: request.queryValue("pageToken"))
        return CloudStorageJSON.listing(listing, origin: origin)
    }

    /// `uploadType=resumable`: a new session, its URL in `Location`. (Media and multipart uploads stream; see
    /// `bodyPlan`.)
    private func upload(_ request: HTTPRequest, _ route: Route, origin: String) throws(HearthError) -> HTTPReply {
        switch request.queryValue("uploadType") {
        case "resumable":
            let (name, attributes) = try StorageAPI.sessionTarget(
                request, contentType: request.headers["X-Upload-Content-Type"])
            if let size = request.headers["X-Upload-Content-Length"].flatMap(Int.init),
                size > store.configuration.maxObjectBytes
            {
                return .response(StorageErrorResponses.tooLarge(store.configuration.maxObjectBytes))
            }
            let session = try store.startSession(bucket: route.bucket, name: name, attributes: attributes)
            let location =
                "\(origin)/upload/storage/v1/b/\(StorageAPI.percentEncoded(route.bucket))/o"
                + "?uploadType=resumable&upload_id=\(session.id)"
            return .response(HTTPResponse(status: 200, headers: [("Location", location)]))
        default:
            throw .invalidArgument("uploadType must be media, multipart or resumable.")
        }
    }

    /// `copyTo` and `rewriteTo`: the destination shares the source's bytes.
    private func copy(
        _ request: HTTPRequest, _ route: Route, _ name: String, origin: String
    ) throws(HearthError)
        -> HTTPResponse
    {
        guard let destination = route.destination, !destination.name.isEmpty else {
            throw .invalidArgument("A copy needs a destination object.")
        }
        let fields = try StorageAPI.jsonObject(request.body)
        var attributes: ObjectAttributes?
        if !fields.isEmpty {
            var changed = try existing(route.bucket, name).attributes
            try changed.apply(fields)
            attributes = changed
        }
        let object = try store.copy(
            bucket: route.bucket, name: name, toBucket: destination.bucket, toName: destination.name,
            attributes: attributes)
        guard route.verb == "rewriteTo" else { return CloudStorageJSON.response(object, origin: origin) }
        let body: JSONValue = [
            "kind": "storage#rewriteResponse", "totalBytesRewritten": .string(String(object.size)),
            "objectSize": .string(String(object.size)), "done": true,
            "resource": CloudStorageJSON.object(object, origin: origin),
        ]
        return Responses.json(body.serialized())
    }
}
