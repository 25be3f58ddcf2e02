import HearthCore
import HearthHTTP
import HearthStorage

extension StorageAPI {
    /// The buffered uploads: the resumable protocol's `start`, `query` and `cancel`. (Media and multipart uploads
    /// and resumable chunks stream; see `bodyPlan`.)
    func upload(_ request: HTTPRequest, _ route: StorageRoute) throws(HearthError) -> HTTPReply {
        switch UploadKind(request) {
        case .resumable(let command) where command.start:
            return .response(try startSession(request, route))
        case .resumable(let command) where command.query:
            let session = try sessionFor(request, route)
            return .response(ResumableResponses.active(received: session.received))
        case .resumable(let command) where command.cancel:
            let session = try sessionFor(request, route)
            try access.check(
                request, .create, bucket: route.bucket, name: session.name,
                incoming: StorageAccess.incoming(
                    bucket: route.bucket, name: session.name, size: Int(session.received),
                    attributes: session.attributes))
            try store.cancel(session)
            return .response(HTTPResponse(status: 200, headers: [("X-Goog-Upload-Status", "cancelled")]))
        default:
            throw .invalidArgument(
                "X-Goog-Upload-Command must be start, upload, finalize, query or cancel for a resumable upload.")
        }
    }

    /// `X-Goog-Upload-Command: start`: a new session; its URL is in `X-Goog-Upload-URL`.
    private func startSession(_ request: HTTPRequest, _ route: StorageRoute) throws(HearthError) -> HTTPResponse {
        let (name, attributes) = try Self.sessionTarget(
            request, contentType: request.headers["X-Goog-Upload-Header-Content-Type"])
        if let size = request.headers["X-Goog-Upload-Header-Content-Length"].flatMap(Int.init),
            size > store.configuration.maxObjectBytes
        {
            return StorageErrorResponses.tooLarge(store.configuration.maxObjectBytes)
        }
        let declared = request.headers["X-Goog-Upload-Header-Content-Length"].flatMap(Int.init) ?? 0
        let existing = try store.object(bucket: route.bucket, name: name)
        try access.check(
            request, existing == nil ? .create : .update, bucket: route.bucket, name: name, existing: existing,
            incoming: StorageAccess.incoming(bucket: route.bucket, name: name, size: declared, attributes: attributes))
        let session = try store.startSession(bucket: route.bucket, name: name, attributes: attributes)
        let url =
            Self.origin(request, listening: "\(configuration.host):\(configuration.port)")
            + "/v0/b/\(Self.percentEncoded(route.bucket))/o?name=\(Self.percentEncoded(name))"
            + "&upload_id=\(session.id)&upload_protocol=resumable"
        return HTTPResponse(
            status: 200,
            headers: [
                ("X-Goog-Upload-Status", "active"), ("X-Goog-Upload-URL", url),
                ("X-Goog-Upload-Control-URL", url), ("X-Goog-Upload-Chunk-Granularity", "262144"),
                ("X-GUploader-UploadID", session.id),
            ])
    }

    private func sessionFor(_ request: HTTPRequest, _ route: StorageRoute) throws(HearthError) -> UploadSession {
        guard let id = request.queryValue("upload_id"), let session = try store.session(id),
            session.bucket == route.bucket
        else {
            throw .notFound("No live upload session with this upload_id (it finished, was cancelled or expired).")
        }
        return session
    }

    /// A resumable session's object from the start request: the name from the JSON metadata body (else `?name=`),
    /// the attributes from `contentType` (a header) and then the metadata's fields.
    static func sessionTarget(
        _ request: HTTPRequest, contentType: String?
    ) throws(HearthError) -> (
        name: String, attributes: ObjectAttributes
    ) {
        var metadata = try jsonObject(request.body)
        let name = metadata["name"]?.stringValue ?? request.queryValue("name") ?? ""
        guard !name.isEmpty else { throw .invalidArgument("A resumable upload needs the object name.") }
        try ObjectName.validate(name)
        metadata["name"] = nil
        var attributes = ObjectAttributes(contentType: contentType)
        try attributes.apply(metadata)
        return (name, attributes)
    }

    /// `text` with everything but unreserved characters percent-encoded, for a query value.
    static func percentEncoded(_ text: String) -> String { PercentEncoding.unreserved(text) }

    /// The scheme and authority of the links an answer holds (an upload session's URL, `selfLink`, `mediaLink`): the
    /// request's `Host`, else the listening address, over `https` when a trusted proxy says the client reached it
    /// over TLS (`X-Forwarded-Proto`), so a client behind a TLS proxy is not sent to plain HTTP for its next chunk.
    static func origin(_ request: HTTPRequest, listening: String) -> String {
        (request.isForwardedHTTPS ? "https://" : "http://") + (request.headers["Host"] ?? listening)
    }
}
