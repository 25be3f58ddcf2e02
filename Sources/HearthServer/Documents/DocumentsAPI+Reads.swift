import HearthCore
import HearthHTTP
import HearthStore

extension DocumentsAPI {
    /// `GET …/documents/{document}`.
    func get(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(request, allowed: ["mask.fieldPaths", "transaction", "readTime"])
        try rejectReadTime(request.queryValue("readTime"))
        let transaction = try request.queryValue("transaction").map { text throws(HearthError) in
            try TransactionID(base64: text)
        }
        let mask = try RequestParameters.fieldPaths(request, "mask.fieldPaths")
        try access?.authorizeGet(request, [route.path], database: route.database)
        guard let document = try store.document(at: route.path, transaction: transaction) else {
            throw .notFound("Document \"\(route.database.name(of: route.path))\" not found.")
        }
        return .response(Responses.json(try DocumentJSON.encode(document, database: route.database, mask: mask)))
    }

    /// `GET …/documents/{collection}`: one page of a collection, ordered as `orderBy` says (see ``ListOrderBy``),
    /// with missing documents (names only) when `showMissing` is true.
    func list(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(
            request,
            allowed: ["pageSize", "pageToken", "orderBy", "mask.fieldPaths", "showMissing", "transaction", "readTime"])
        try rejectReadTime(request.queryValue("readTime"))
        if request.queryValue("transaction") != nil {
            throw HearthError(
                .unimplemented, "Listing in a transaction is not supported; use :runQuery with the transaction.")
        }
        let mask = try RequestParameters.fieldPaths(request, "mask.fieldPaths")
        let pageSize = min(
            try RequestParameters.integer(request, "pageSize").flatMap { $0 == 0 ? nil : $0 } ?? 1000, 10_000)
        let orderBy = try ListOrderBy.parse(request.queryValue("orderBy") ?? "")
        var query = StructuredQuery(parent: route.path.parent, collectionID: route.path.lastSegment, orderBy: orderBy)
        try query.validate(database: route.database, at: "")
        let showMissing = try RequestParameters.boolean(request, "showMissing") ?? false
        query.limit = pageSize
        try access?.authorizeQuery(request, query, database: route.database)
        let page = try store.listDocuments(
            ListDocumentsRequest(
                collection: route.path, database: route.database, pageSize: pageSize,
                pageToken: request.queryValue("pageToken").flatMap { $0.isEmpty ? nil : $0 }, orderBy: orderBy,
                showMissing: showMissing))
        var body: [UInt8] = Array("{".utf8)
        if !page.documents.isEmpty {
            body.append(contentsOf: #""documents":["#.utf8)
            for (index, entry) in page.documents.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                switch entry {
                case .found(let document):
                    try DocumentJSON.append(document, database: route.database, mask: mask, to: &body)
                case .missing(let path):
                    // A missing document has a name and nothing else: no fields, createTime or updateTime.
                    body.append(contentsOf: #"{"name":"#.utf8)
                    route.database.appendJSONName(of: path, to: &body)
                    body.append(UInt8(ascii: "}"))
                }
            }
            body.append(UInt8(ascii: "]"))
        }
        if let token = page.nextPageToken {
            if !page.documents.isEmpty { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: #""nextPageToken":"#.utf8)
            JSONWriter.appendString(token, into: &body)
        }
        body.append(UInt8(ascii: "}"))
        return .response(Responses.json(body))
    }

    /// `POST …:batchGet`: several documents by name, each `found` or `missing`.
    func batchGet(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(request, allowed: [])
        let body = try JSONObjectReader(
            try RequestParameters.body(request), at: "",
            allowed: ["documents", "mask", "transaction", "newTransaction", "readTime"])
        try rejectReadTime(try body.string("readTime"))
        let (transaction, isNew) = try transaction(from: body, request)
        let mask = try body["mask"].map { json throws(HearthError) in
            try FieldPath.mask(firestoreJSON: json, at: "mask")
        }
        let names = try body.strings("documents") ?? []
        // Bounded so one request's work stays bounded; its answer is bounded in bytes by the store.
        guard names.count <= configuration.maxBatchGetDocuments else {
            throw .invalidArgument(
                "A batchGet may name at most \(configuration.maxBatchGetDocuments) documents (the server's --max-batch-get); this one names \(names.count)."
            )
        }
        var paths: [ResourcePath] = []
        for name in names {
            let path = try route.database.path(fromName: name)
            guard path.isDocument else {
                throw .invalidArgument("\"\(name.prefix(200))\" is not a document name.")
            }
            paths.append(path)
        }
        try access?.authorizeGet(request, paths, database: route.database)
        let documents = try store.documents(at: paths, transaction: transaction)
        let readTime = clock.now().rfc3339
        var out: [UInt8] = Array("[".utf8)
        if isNew, let transaction, paths.isEmpty {
            out.append(contentsOf: #"{"transaction":"#.utf8)
            JSONWriter.appendString(transaction.base64, into: &out)
            out.append(contentsOf: #","readTime":""#.utf8)
            out.append(contentsOf: readTime.utf8)
            out.append(contentsOf: #""}"#.utf8)
        }
        for (index, (path, document)) in zip(paths, documents).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if index == 0, isNew, let transaction {
                out.append(contentsOf: #"{"transaction":"#.utf8)
                JSONWriter.appendString(transaction.base64, into: &out)
                out.append(UInt8(ascii: ","))
                out.append(contentsOf: (document != nil ? #""found":"# : #""missing":"#).utf8)
            } else {
                out.append(contentsOf: (document != nil ? #"{"found":"# : #"{"missing":"#).utf8)
            }
            if let document {
                try DocumentJSON.append(document, database: route.database, mask: mask, to: &out)
            } else {
                JSONWriter.appendString(route.database.name(of: path), into: &out)
            }
            out.append(contentsOf: #","readTime":""#.utf8)
            out.append(contentsOf: readTime.utf8)
            out.append(contentsOf: #""}"#.utf8)
        }
        out.append(UInt8(ascii: "]"))
        return .response(Responses.json(out))
    }

    /// `POST …/documents[/{document}]:listCollectionIds`.
    func listCollectionIDs(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try access?.authorizeListCollectionIDs(request, devMode: configuration.devMode)
        try RequestParameters.check(request, allowed: [])
        guard route.path.segments.isEmpty || route.path.isDocument else {
            throw .invalidArgument(
                "listCollectionIds takes a document (or the documents root) as its parent, not a collection.")
        }
        let body = try JSONObjectReader(
            try RequestParameters.body(request), at: "", allowed: ["pageSize", "pageToken", "readTime"])
        try rejectReadTime(try body.string("readTime"))
        let pageSize = Int(try body.integer("pageSize") ?? 0)
        guard pageSize >= 0 else { throw .invalidArgument("pageSize must not be negative.") }
        let limit = pageSize == 0 ? 10_000 : min(pageSize, 10_000)
        var after: String?
        if let token = try body.string("pageToken"), !token.isEmpty {
            guard let decoded = Base64URL.decode(token) else {
                throw .invalidArgument("Invalid pageToken: pass the nextPageToken of the previous page unchanged.")
            }
            after = String(decoding: decoded, as: UTF8.self)
        }
        let ids = try store.collectionIDs(under: route.path, after: after, limit: limit + 1)
        let page = Array(ids.prefix(limit))
        var out: [UInt8] = Array("{".utf8)
        if !page.isEmpty {
            out.append(contentsOf: #""collectionIds":["#.utf8)
            for (index, id) in page.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(id, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        if ids.count > limit, let last = page.last {
            out.append(contentsOf: #","nextPageToken":"#.utf8)
            JSONWriter.appendString(Base64URL.encode(Array(last.utf8)), into: &out)
        }
        out.append(UInt8(ascii: "}"))
        return .response(Responses.json(out))
    }

    /// Reads at a past time would need old versions, which Hearth does not keep; fail loudly rather than
    /// silently reading the latest state.
    func rejectReadTime(_ readTime: String?) throws(HearthError) {
        if readTime != nil {
            throw HearthError(.unimplemented, "readTime is not supported: Hearth reads the latest committed state.")
        }
    }

    /// The `transaction` of a read request, or a new one from `newTransaction` (then `isNew`).
    func transaction(
        from body: JSONObjectReader, _ request: HTTPRequest
    ) throws(HearthError) -> (TransactionID?, isNew: Bool) {
        if let text = try body.string("transaction") {
            guard body["newTransaction"] == nil else {
                throw .invalidArgument("Give transaction or newTransaction, not both.")
            }
            return (try TransactionID(base64: text), false)
        }
        if let options = body["newTransaction"] {
            let mode = try Self.transactionMode(options, at: "newTransaction")
            return (try store.beginTransaction(mode, caller: try transactionCaller(request)), true)
        }
        return (nil, false)
    }

    /// Who holds a transaction `request` begins (see ``DocumentAccess/transactionCaller(_:)``); by address when
    /// no rules are in force.
    func transactionCaller(_ request: HTTPRequest) throws(HearthError) -> String? {
        guard let access else { return "address \(request.remoteAddress)" }
        return try access.transactionCaller(request)
    }

    /// `TransactionOptions`: `{"readOnly": {…}}` or `{"readWrite": {…}}` (read-write when empty).
    static func transactionMode(_ json: JSONValue, at location: String) throws(HearthError) -> TransactionMode {
        let options = try JSONObjectReader(json, at: location, allowed: ["readOnly", "readWrite"])
        switch (options["readOnly"], options["readWrite"]) {
        case (let readOnly?, nil):
            let reader = try JSONObjectReader(readOnly, at: "\(location).readOnly", allowed: ["readTime"])
            if reader["readTime"] != nil {
                throw HearthError(
                    .unimplemented, "readOnly.readTime is not supported: Hearth reads the latest committed state.")
            }
            return .readOnly
        case (nil, let readWrite?):
            _ = try JSONObjectReader(readWrite, at: "\(location).readWrite", allowed: ["retryTransaction"])
            return .readWrite
        case (nil, nil):
            return .readWrite
        default:
            throw .invalidArgument("\(location): give readOnly or readWrite, not both.")
        }
    }
}
