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
        let document = try readDocument(
            at: route.path, database: route.database, transaction: transaction, caller: request)
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
        let page = try listPage(
            of: route.path, database: route.database, pageSize: try RequestParameters.integer(request, "pageSize") ?? 0,
            pageToken: request.queryValue("pageToken"),
            orderBy: try ListOrderBy.parse(request.queryValue("orderBy") ?? ""),
            showMissing: try RequestParameters.boolean(request, "showMissing") ?? false, caller: request)
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
        var paths: [ResourcePath] = []
        for name in try body.strings("documents") ?? [] {
            paths.append(try route.database.path(fromName: name))
        }
        let documents = try readDocuments(
            at: paths, database: route.database, transaction: transaction, caller: request)
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
        try RequestParameters.check(request, allowed: [])
        let body = try JSONObjectReader(
            try RequestParameters.body(request), at: "", allowed: ["pageSize", "pageToken", "readTime"])
        try rejectReadTime(try body.string("readTime"))
        let (page, nextPageToken) = try collectionIDPage(
            under: route.path, pageSize: Int(try body.integer("pageSize") ?? 0),
            pageToken: try body.string("pageToken"),
            caller: request)
        var out: [UInt8] = Array("{".utf8)
        if !page.isEmpty {
            out.append(contentsOf: #""collectionIds":["#.utf8)
            for (index, id) in page.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(id, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        if let nextPageToken {
            out.append(contentsOf: #","nextPageToken":"#.utf8)
            JSONWriter.appendString(nextPageToken, into: &out)
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
