import HearthCore
import HearthHTTP

/// A Realtime Database REST request, parsed: which database, location and method, and the options that shape the
/// answer. Only paths ending in `.json` are tree requests.
struct TreeRequest: Sendable {
    /// What the path addresses.
    enum Target: Sendable, Equatable {
        /// The data at ``path``.
        case data
        /// The priority of the node at ``path`` (`/path/.priority.json`).
        case priority
        /// The namespace's rules (`/.settings/rules.json`).
        case rules
    }

    /// The method after `X-HTTP-Method-Override`.
    var method: String
    /// The database.
    var namespace: String
    /// The location.
    var path: TreePath
    /// What is addressed.
    var target: Target
    /// `print`, `callback`, `download`.
    var printing = TreeResponses.Printing()
    /// `format=export` includes priorities.
    var format = TreeFormat.plain
    /// `shallow=true`.
    var shallow = false
    /// Hearth's paging of a shallow read (`pageSize`, 1…1000, and `pageToken`, the last key of the previous page,
    /// from its `X-Hearth-Next-Page-Token` header): a node with very many children, a page at a time.
    var shallowPage: (after: String?, size: Int)?
    /// `orderBy` and friends.
    var query: TreeQuery?
    /// `X-Firebase-ETag: true`.
    var wantsETag = false
    /// `if-match`.
    var ifMatch: String?
    /// `if-none-match`.
    var ifNoneMatch: String?
    /// `Accept: text/event-stream` on a GET.
    var isStream = false

    /// The request as a tree request; `nil` when the path does not end in `.json`.
    static func parse(_ request: HTTPRequest, projectID: String) throws(HearthError) -> TreeRequest? {
        guard request.path.hasSuffix(".json"), request.path.hasPrefix("/") else { return nil }
        var location = String(request.path.dropLast(".json".count))
        var target = Target.data
        if location == "/.settings/rules" {
            target = .rules
            location = "/"
        } else if location.hasSuffix("/.priority") {
            target = .priority
            location.removeLast("/.priority".count)
        }
        let path = try TreePath(validating: location)
        var parsed = TreeRequest(
            method: try method(of: request), namespace: try namespace(of: request, projectID: projectID), path: path,
            target: target)
        try parsed.readOptions(request)
        return parsed
    }

    /// `X-HTTP-Method-Override` (header or query parameter) applies to POST, for clients that can send nothing else.
    private static func method(of request: HTTPRequest) throws(HearthError) -> String {
        let method = request.method == "HEAD" ? "GET" : request.method
        guard method == "POST",
            let override = request.headers["X-HTTP-Method-Override"] ?? request.queryValue("x-http-method-override")
        else { return method }
        let upper = override.uppercased()
        guard ["GET", "PUT", "POST", "PATCH", "DELETE"].contains(upper) else {
            throw .invalidArgument("X-HTTP-Method-Override must be GET, PUT, POST, PATCH or DELETE.")
        }
        return upper
    }

    /// `?ns=` names the database; without it, and for `{project}` or `{project}-default-rtdb`, the default one.
    static func namespace(of request: HTTPRequest, projectID: String) throws(HearthError) -> String {
        guard let ns = request.queryValue("ns"), !ns.isEmpty else { return projectID }
        if ns == projectID || ns == projectID + "-default-rtdb" { return projectID }
        guard ns.utf8.count <= 128,
            ns.utf8.allSatisfy({
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            })
        else {
            throw .invalidArgument("Invalid namespace: ns must be 1 to 128 letters, digits, '-' or '_'.")
        }
        return ns
    }

    private mutating func readOptions(_ request: HTTPRequest) throws(HearthError) {
        var parameters: [String: String] = [:]
        for item in request.query where parameters[item.name] == nil { parameters[item.name] = item.value }
        switch parameters["print"] {
        case nil: break
        case "pretty": printing.pretty = true
        case "silent": printing.silent = true
        default: throw .invalidArgument("print must be pretty or silent.")
        }
        switch parameters["format"] {
        case nil: break
        case "export": format = .export
        default: throw .invalidArgument("format must be export.")
        }
        switch parameters["shallow"] {
        case nil, "false": break
        case "true": shallow = true
        default: throw .invalidArgument("shallow must be true or false.")
        }
        if let size = parameters["pageSize"] {
            guard shallow else { throw .invalidArgument("pageSize pages a shallow read: add shallow=true.") }
            guard let count = Int(size), (1...1000).contains(count) else {
                throw .invalidArgument("pageSize must be a whole number from 1 to 1000.")
            }
            shallowPage = (parameters["pageToken"].flatMap { $0.isEmpty ? nil : $0 }, count)
        } else if parameters["pageToken"] != nil {
            throw .invalidArgument("pageToken needs pageSize (and shallow=true).")
        }
        if let callback = parameters["callback"] {
            guard !callback.isEmpty, callback.utf8.count <= 100,
                callback.utf8.allSatisfy({
                    (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                        || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "$") || $0 == UInt8(ascii: ".")
                })
            else { throw .invalidArgument("callback must be a JavaScript function name.") }
            printing.callback = callback
        }
        if let download = parameters["download"] {
            printing.download = String(download.filter { $0 != "\"" && $0 != "\\" && !$0.isNewline }.prefix(200))
        }
        if let limit = parameters["writeSizeLimit"], !["tiny", "small", "medium", "large", "unlimited"].contains(limit)
        {
            throw .invalidArgument("writeSizeLimit must be tiny, small, medium, large or unlimited.")
        }
        query = try TreeQuery.parse(rest: parameters)
        if shallow && query != nil {
            throw .invalidArgument("Mixing 'shallow' and query parameters is not supported.")
        }
        wantsETag = request.headers["X-Firebase-ETag"]?.lowercased() == "true"
        ifMatch = request.headers["if-match"]
        ifNoneMatch = request.headers["if-none-match"]
        isStream = method == "GET" && (request.headers["Accept"]?.contains("text/event-stream") ?? false)
    }
}
