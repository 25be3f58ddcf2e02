import HearthCore
import HearthHTTP
import HearthStore

extension TreeAPI {
    /// PUT, POST, PATCH and DELETE: parsed and checked here, judged by the rules and applied by the store's writer,
    /// answered once durable.
    func write(_ request: TreeRequest, _ http: HTTPRequest, auth: AuthContext?) throws(HearthError) -> HTTPReply {
        if http.bodyTooLarge {
            throw HearthError(
                .resourceExhausted,
                "Data to write exceeds the maximum size that can be modified with a single request (\(configuration.maxBodyBytes) bytes)."
            )
        }
        let key = try WriteIdempotency.key(of: http)
        if let key, let answer = try tree.recordedAnswer(forWriteID: key) {
            return .response(TreeResponses.bytes(answer))
        }
        var path = request.path
        let operation: TreeWrite.Operation
        var pushID: String?
        switch (request.method, request.target) {
        case ("DELETE", _) where request.target == .priority:
            operation = .priority(nil)
        case ("DELETE", _):
            operation = .put(TreeWriteValue(node: nil))
        case ("PUT", .priority):
            operation = .priority(try TreeWriteValue.parsePriority(try Self.body(http), path))
        case ("PUT", _):
            operation = .put(try TreeWriteValue(json: try Self.body(http), at: path))
        case ("POST", .data):
            let id = pushIDs.next()
            pushID = id
            path = path.child(id)
            operation = .put(try TreeWriteValue(json: try Self.body(http), at: path))
        case ("PATCH", .data):
            let entries = try Self.patchEntries(try Self.body(http), at: path)
            if entries.isEmpty {
                guard try access.canWriteNothing(request.namespace, path, auth) else { throw Self.permissionDenied }
                return .response(TreeResponses.json(.object([:]), request.printing))
            }
            operation = .patch(entries)
        default:
            throw HearthError(
                .unimplemented, "\(request.method) is not supported on a priority; use GET, PUT or DELETE.")
        }
        let conditional = request.method == "PUT" || request.method == "DELETE" ? request.ifMatch : nil
        // A stale conditional write answers with the current value, so it needs read access as well.
        if conditional != nil, try !access.canRead(request.namespace, path, auth) { throw Self.permissionDenied }
        var pending = TreeWrite(
            namespace: request.namespace, path: path, operation: operation, ifMatch: conditional, auth: auth,
            judge: access.writeJudge(auth, in: request.namespace))
        let sendETag = request.wantsETag || conditional != nil
        let name = pushID
        if let key {
            // The body is kept (as this request prints it; headers such as the ETag are not); a resend gets it back.
            pending.receipt = WriteReceipt(id: key) { change in
                Self.answer(to: request, change: change, pushID: name, sendETag: false).body
            }
        }
        let write = pending
        return .deferred { [tree] respond in
            tree.write(write) { result in
                switch result {
                case .failure(let error):
                    respond(TreeResponses.error(error))
                case .success(.denied):
                    respond(TreeResponses.error(Self.permissionDenied))
                case .success(.preconditionFailed(let current, let etag)):
                    respond(
                        TreeResponses.json(
                            TreeNode.json(current, request.format), status: 412, headers: [("ETag", etag)]))
                case .success(.committed(let change)):
                    if key != nil { WriteIdempotency.committed() }
                    respond(Self.answer(to: request, change: change, pushID: name, sendETag: sendETag))
                }
            }
        }
    }

    /// What a committed write answers: PUT echoes the value written (server values filled in), PATCH the updates,
    /// POST the new child's name, DELETE `null`.
    private static func answer(
        to request: TreeRequest, change: TreeChange, pushID: String?, sendETag: Bool
    ) -> HTTPResponse {
        let written = change.updates.first?.node
        var headers = HTTPHeaders()
        if sendETag { headers.add(name: "ETag", value: TreeETag.of(written)) }
        if let pushID {
            return TreeResponses.json(.object(["name": .string(pushID)]), request.printing, headers: headers)
        }
        switch (change.kind, request.target) {
        case (_, .priority):
            return TreeResponses.json(written?.priority?.json ?? .null, request.printing, headers: headers)
        case (.put, _):
            return TreeResponses.json(TreeNode.json(written, request.format), request.printing, headers: headers)
        case (.patch, _):
            var members: [String: JSONValue] = [:]
            for update in change.updates {
                members[String(update.path.description.dropFirst())] = TreeNode.json(update.node, request.format)
            }
            return TreeResponses.json(.object(members), request.printing, headers: headers)
        }
    }

    /// The request body as JSON.
    static func body(_ http: HTTPRequest) throws(HearthError) -> JSONValue {
        guard !http.body.isEmpty else {
            throw .invalidArgument("Invalid data; couldn't parse JSON object, array, or value.")
        }
        do {
            return try JSONParser.parse(http.body)
        } catch {
            throw .invalidArgument("Invalid data; couldn't parse JSON object, array, or value. \(error.description)")
        }
    }

    /// A PATCH body: an object whose keys are paths relative to the location (`"a/b"` updates a grandchild),
    /// none inside another.
    static func patchEntries(
        _ json: JSONValue, at location: TreePath
    ) throws(HearthError) -> [(path: TreePath, value: TreeWriteValue)] {
        guard case .object(let members) = json else {
            throw .invalidArgument("Invalid data; a PATCH body must be a JSON object of paths to values.")
        }
        if members.count > TreeLimits.maxUpdatePaths {
            throw .invalidArgument("Invalid data; a PATCH may name at most \(TreeLimits.maxUpdatePaths) paths.")
        }
        var entries: [(path: TreePath, value: TreeWriteValue)] = []
        for (key, value) in members {
            let relative = try TreePath(validating: key)
            if location.count + relative.count > TreeLimits.maxDepth {
                throw .invalidArgument(
                    "Invalid data; the path \(key.prefix(200)) is deeper than \(TreeLimits.maxDepth) levels.")
            }
            entries.append((relative, try TreeWriteValue(json: value, at: location.appending(relative))))
        }
        entries.sort { $0.path < $1.path }
        for (first, second) in zip(entries, entries.dropFirst()) where first.path.contains(second.path) {
            throw .invalidArgument(
                "Invalid data; the update paths \(first.path.description.prefix(200)) and \(second.path.description.prefix(200)) overlap: one contains the other."
            )
        }
        return entries
    }
}
