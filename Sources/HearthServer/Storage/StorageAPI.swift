import Dispatch
import HearthCore
import HearthHTTP
import HearthRules
import HearthStorage

/// Firebase Storage's REST v0 API, as the Storage emulator serves it: `/v0/b/{bucket}/o[/{name}]`.
///
/// File bytes stream both ways: uploads go chunk by chunk to disk (`bodyPlan`), downloads are sent from the file by
/// libmicrohttpd. Metadata calls answer on the HTTP thread, as documents do; commits, which fsync a whole file, run
/// on `work`.
struct StorageAPI: API, StreamingAPI {
    let store: FileStore
    let configuration: ServerConfiguration
    let access: StorageAccess
    let work = DispatchQueue(label: "hearth.storage.commit", attributes: .concurrent)

    // MARK: - Streamed uploads

    func bodyPlan(for request: HTTPRequest) -> (route: String, plan: HTTPBodyPlan)? {
        guard request.method == "POST" || request.method == "PUT", let route = StorageRoute.parse(request.path),
            route.name == nil
        else { return nil }
        let kind = UploadKind(request)
        guard kind.streamsBody else { return nil }
        do throws(HearthError) {
            try checkBucket(route.bucket)
            switch kind {
            case .resumable(let command):
                return ("storage.upload.resumable", try chunkPlan(request, route, finalize: command.finalize))
            case .multipart:
                let sink = try ObjectUploadSink(
                    multipart: request, store: store, bucket: route.bucket, work: work,
                    answers: UploadAnswers(
                        stored: { StorageJSON.response($0) }, progress: UploadAnswers.firebase.progress,
                        moved: UploadAnswers.firebase.moved),
                    judge: judge(request, bucket: route.bucket))
                return ("storage.upload.multipart", .streamed(sink))
            default:
                return ("storage.upload.media", try mediaPlan(request, route))
            }
        } catch {
            return ("storage.upload", .reject(Responses.error(error)))
        }
    }

    private func mediaPlan(_ request: HTTPRequest, _ route: StorageRoute) throws(HearthError) -> HTTPBodyPlan {
        guard let name = request.queryValue("name"), !name.isEmpty else {
            throw .invalidArgument("An upload needs the object name in ?name=.")
        }
        try ObjectName.validate(name)
        let target = ObjectUploadSink.Target(
            name: name, attributes: ObjectAttributes(contentType: request.headers["Content-Type"]))
        let bucket = route.bucket
        // Judged at the start with the declared size, and again before the commit with the real one.
        let judge = judge(request, bucket: bucket)
        try judge(target, request.headers["Content-Length"].flatMap(Int.init) ?? 0)
        let sink = try ObjectUploadSink(store: store, bucket: bucket, target: target, work: work, judge: judge)
        return .streamed(sink)
    }

    /// The rules' verdict on an upload of `target` with `size` bytes: a create, or an update of the object there
    /// now.
    private func judge(_ request: HTTPRequest, bucket: String) -> ObjectUploadSink.Judge {
        { [access, store] target, size throws(HearthError) in
            let existing = try store.object(bucket: bucket, name: target.name)
            try access.check(
                request, existing == nil ? .create : .update, bucket: bucket, name: target.name, existing: existing,
                incoming: StorageAccess.incoming(
                    bucket: bucket, name: target.name, size: size, attributes: target.attributes))
        }
    }

    private func chunkPlan(
        _ request: HTTPRequest, _ route: StorageRoute, finalize: Bool
    ) throws(HearthError)
        -> HTTPBodyPlan
    {
        let session = try liveSession(request, route)
        let existing = try store.object(bucket: route.bucket, name: session.name)
        let method: FirestoreMethod = existing == nil ? .create : .update
        let bucket = route.bucket
        let declared = request.headers["Content-Length"].flatMap(Int.init) ?? 0
        try access.check(
            request, method, bucket: bucket, name: session.name, existing: existing,
            incoming: StorageAccess.incoming(
                bucket: bucket, name: session.name, size: Int(session.received) + declared,
                attributes: session.attributes))
        if let offset = request.headers["X-Goog-Upload-Offset"], Int64(offset) != session.received {
            return .reject(ResumableResponses.wrongOffset(sent: offset, received: session.received))
        }
        let sink = try ResumableChunkSink(
            store: store, session: session, finalize: finalize, work: work,
            finalCheck: { [access] size throws(HearthError) in
                try access.check(
                    request, method, bucket: bucket, name: session.name, existing: existing,
                    incoming: StorageAccess.incoming(
                        bucket: bucket, name: session.name, size: size, attributes: session.attributes))
            })
        return .streamed(sink)
    }

    private func liveSession(_ request: HTTPRequest, _ route: StorageRoute) throws(HearthError) -> UploadSession {
        guard let id = request.queryValue("upload_id"), let session = try store.session(id),
            session.bucket == route.bucket
        else {
            throw .notFound("No live upload session with this upload_id (it finished, was cancelled or expired).")
        }
        return session
    }

    // MARK: - Buffered routes

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        guard let route = StorageRoute.parse(request.path) else { return nil }
        let name = routeName(request, route)
        do throws(HearthError) {
            try checkBucket(route.bucket)
            if request.bodyTooLarge {
                throw .invalidArgument("Request payload size exceeds the limit: \(configuration.maxBodyBytes) bytes.")
            }
            return (name, try dispatch(request, route))
        } catch {
            return (name, .response(Responses.error(error)))
        }
    }

    private func routeName(_ request: HTTPRequest, _ route: StorageRoute) -> String {
        switch (request.method, route.name) {
        case ("GET", nil): "storage.list"
        case ("GET", _): request.queryValue("alt") == "media" ? "storage.download" : "storage.get"
        case ("POST", nil): "storage.upload"
        case ("POST", _): "storage.token"
        case ("PATCH", _): "storage.update"
        case ("DELETE", _): "storage.delete"
        default: "storage.other"
        }
    }

    private func dispatch(_ request: HTTPRequest, _ route: StorageRoute) throws(HearthError) -> HTTPReply {
        guard let name = route.name, !name.isEmpty else {
            switch request.method {
            case "GET": return .response(try list(request, route))
            case "POST", "PUT": return try upload(request, route)
            default: throw methodNotAllowed(request.method, "a bucket's objects", "GET, POST")
            }
        }
        switch request.method {
        case "GET", "HEAD":
            if request.queryValue("alt") == "media" { return .response(try download(request, route.bucket, name)) }
            return .response(try metadata(request, route.bucket, name))
        case "PATCH", "PUT": return .response(try update(request, route.bucket, name))
        case "DELETE": return .response(try delete(request, route.bucket, name))
        case "POST": return .response(try tokens(request, route.bucket, name))
        default: throw methodNotAllowed(request.method, "an object", "GET, PATCH, DELETE, POST")
        }
    }

    /// In development mode any bucket; otherwise the project's two default bucket names.
    private func checkBucket(_ bucket: String) throws(HearthError) {
        guard !configuration.devMode else { return }
        let project = configuration.projectID
        guard bucket == "\(project).appspot.com" || bucket == "\(project).firebasestorage.app" else {
            throw .notFound(
                "Bucket \(bucket.prefix(200)) is not served here; use \(project).appspot.com or "
                    + "\(project).firebasestorage.app.")
        }
    }

    func methodNotAllowed(_ method: String, _ target: String, _ allowed: String) -> HearthError {
        .notFound("Method \(method) is not supported on \(target); use \(allowed).")
    }
}
