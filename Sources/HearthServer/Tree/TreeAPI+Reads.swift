import HearthCore
import HearthHTTP
import HearthListen
import HearthStore

extension TreeAPI {
    /// GET: the value (or the query's window, or a shallow view) at a location, with an ETag on request.
    func read(_ request: TreeRequest, auth: AuthContext?) throws(HearthError) -> HTTPResponse {
        if request.shallow {
            let value: JSONValue
            var headers = HTTPHeaders()
            // One key more than the page shows whether another page follows.
            let page = request.shallowPage
            switch try tree.shallow(
                request.namespace, at: request.path, after: page?.after, limit: page.map { $0.size + 1 }, auth: auth)
            {
            case .missing: value = page?.after == nil ? .null : .object([:])
            case .leaf(let leaf): value = leaf.json
            case .children(var keys):
                if let page, keys.count > page.size {
                    keys.removeLast(keys.count - page.size)
                    headers.add(
                        name: "X-Hearth-Next-Page-Token", value: PercentEncoding.unreserved(keys[keys.count - 1]))
                }
                value = .object(Dictionary(uniqueKeysWithValues: keys.map { ($0, JSONValue.bool(true)) }))
            }
            return TreeResponses.json(value, request.printing, headers: headers)
        }
        let snapshot = try tree.read(request.namespace, at: request.path, auth: auth)
        var headers = HTTPHeaders()
        // The tag costs a second serialization and a hash, so only requests that ask for one pay for it.
        if request.wantsETag || request.ifNoneMatch != nil {
            let etag = TreeETag.of(snapshot.node)
            if request.ifNoneMatch == etag {
                return HTTPResponse(status: 304, headers: [("ETag", etag)])
            }
            headers.add(name: "ETag", value: etag)
        }
        let value: JSONValue
        switch request.target {
        case .priority:
            value = snapshot.node?.priority?.json ?? .null
        default:
            let node = request.query.map { $0.filtered(snapshot.node) } ?? snapshot.node
            value = TreeNode.json(node, request.format)
        }
        return TreeResponses.json(value, request.printing, headers: headers)
    }

    /// GET with `Accept: text/event-stream`: a stream that starts with the location's value and then carries every
    /// change to it.
    func stream(_ request: TreeRequest, _ http: HTTPRequest, auth: AuthContext?) throws(HearthError) -> HTTPReply {
        if request.shallow { throw .invalidArgument("shallow cannot be used with streaming.") }
        if request.target == .priority { throw .invalidArgument("A priority cannot be streamed; stream its node.") }
        let check = authenticator.recheck(http, auth: auth)
        let stream = HTTPEventStream(
            status: 200, headers: [], maxBufferedBytes: configuration.listen.treeBufferBytes)
        let id = hub.open(
            TreeListenRequest(
                namespace: request.namespace, location: request.path, query: request.query, format: request.format,
                auth: auth, credentialStillValid: check),
            sink: TreeStreamSink(stream: stream, logger: logger))
        stream.onClose { [hub] in hub.close(id) }
        return .stream(stream)
    }
}
