import HearthCore
import HearthHTTP
import HearthStore

extension DocumentsAPI {
    /// `POST …/documents[/{document}]:runQuery`: a structured query, answered as Firestore's stream of
    /// `RunQueryResponse` objects in one JSON array.
    func runQuery(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(request, allowed: [])
        let parent = try queryParent(route)
        let body = try JSONObjectReader(
            try RequestParameters.body(request), at: "",
            allowed: ["structuredQuery", "transaction", "newTransaction", "readTime", "explainOptions"])
        try rejectReadTime(try body.string("readTime"))
        guard let queryJSON = body["structuredQuery"] else {
            throw .invalidArgument("A :runQuery body needs a structuredQuery.")
        }
        let query = try StructuredQuery(
            firestoreJSON: queryJSON, at: "structuredQuery", database: route.database, parent: parent)
        try access?.authorizeQuery(request, query, database: route.database)
        let explain = try Self.explainOptions(body["explainOptions"])
        let (transaction, isNew) = try transaction(from: body, request)
        // Each element of the response holds some members; the first also names a new transaction, and
        // every element carries the read time, as Firestore's RunQueryResponse stream does.
        var elements: [[UInt8]] = []
        if explain == false {
            // Plan only: nothing is read.
            let results = try store.runQuery(Self.withLimit(query, 0), transaction: transaction)
            var members: [UInt8] = []
            Self.appendExplain(results.plans, stats: nil, to: &members)
            elements.append(members)
        } else {
            let results = try store.runQuery(query, transaction: transaction)
            for document in results.documents {
                var members: [UInt8] = Array(#""document":"#.utf8)
                try DocumentJSON.append(document, database: route.database, mask: nil, to: &members)
                elements.append(members)
            }
            if explain == true {
                var members: [UInt8] = []
                Self.appendExplain(
                    results.plans, stats: (results.documents.count, results.indexEntriesRead, results.documentsRead),
                    to: &members)
                elements.append(members)
            } else if results.documents.isEmpty {
                elements.append([])
            }
        }
        let readTime = clock.now().rfc3339
        var out: [UInt8] = Array("[".utf8)
        for (index, members) in elements.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "{"))
            out.append(contentsOf: members)
            if !members.isEmpty { out.append(UInt8(ascii: ",")) }
            if index == 0, isNew, let transaction {
                out.append(contentsOf: #""transaction":"#.utf8)
                JSONWriter.appendString(transaction.base64, into: &out)
                out.append(UInt8(ascii: ","))
            }
            out.append(contentsOf: #""readTime":""#.utf8)
            out.append(contentsOf: readTime.utf8)
            out.append(contentsOf: #""}"#.utf8)
        }
        out.append(UInt8(ascii: "]"))
        return .response(Responses.json(out))
    }

    /// `POST …:runAggregationQuery`: `count`, `sum`, `avg` over a structured query.
    func runAggregationQuery(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(request, allowed: [])
        let parent = try queryParent(route)
        let body = try JSONObjectReader(
            try RequestParameters.body(request), at: "",
            allowed: ["structuredAggregationQuery", "transaction", "newTransaction", "readTime", "explainOptions"])
        try rejectReadTime(try body.string("readTime"))
        guard let queryJSON = body["structuredAggregationQuery"] else {
            throw .invalidArgument("A :runAggregationQuery body needs a structuredAggregationQuery.")
        }
        let aggregation = try AggregationQuery(
            firestoreJSON: queryJSON, at: "structuredAggregationQuery", database: route.database, parent: parent)
        try access?.authorizeQuery(request, aggregation.query, database: route.database)
        let explain = try Self.explainOptions(body["explainOptions"])
        let (transaction, isNew) = try transaction(from: body, request)
        let results = try store.runAggregation(aggregation, transaction: transaction)
        var out: [UInt8] = Array(#"[{"result":{"aggregateFields":{"#.utf8)
        for (index, alias) in results.values.keys.sorted().enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(alias, into: &out)
            out.append(UInt8(ascii: ":"))
            results.values[alias]!.appendFirestoreJSON(to: &out)
        }
        out.append(contentsOf: "}}".utf8)
        if let explain {
            out.append(UInt8(ascii: ","))
            Self.appendExplain(
                results.plans, stats: explain ? (1, results.indexEntriesRead, results.documentsRead) : nil, to: &out)
        }
        if isNew, let transaction {
            out.append(contentsOf: #","transaction":"#.utf8)
            JSONWriter.appendString(transaction.base64, into: &out)
        }
        out.append(contentsOf: #","readTime":""#.utf8)
        out.append(contentsOf: clock.now().rfc3339.utf8)
        out.append(contentsOf: #""}]"#.utf8)
        return .response(Responses.json(out))
    }

    /// `POST …:beginTransaction`.
    func beginTransaction(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(request, allowed: [])
        let body = try JSONObjectReader(try RequestParameters.body(request), at: "", allowed: ["options"])
        let mode =
            try body["options"].map { json throws(HearthError) in try Self.transactionMode(json, at: "options") }
            ?? .readWrite
        let id = try store.beginTransaction(mode, caller: try transactionCaller(request))
        var out: [UInt8] = Array(#"{"transaction":"#.utf8)
        JSONWriter.appendString(id.base64, into: &out)
        out.append(UInt8(ascii: "}"))
        return .response(Responses.json(out))
    }

    /// `POST …:rollback`.
    func rollback(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(request, allowed: [])
        let body = try JSONObjectReader(try RequestParameters.body(request), at: "", allowed: ["transaction"])
        guard let text = try body.string("transaction") else {
            throw .invalidArgument("A :rollback body needs the transaction.")
        }
        try store.rollback(try TransactionID(base64: text))
        return .response(Responses.emptyObject)
    }

    private func queryParent(_ route: DocumentsRoute) throws(HearthError) -> ResourcePath {
        guard route.path.segments.isEmpty || route.path.isDocument else {
            throw .invalidArgument(
                "A query's parent is the documents root or a document (…/documents or …/documents/users/alice), not a collection; name the collection in structuredQuery.from."
            )
        }
        return route.path
    }

    /// `explainOptions`: `nil` when absent, else whether to run the query (`analyze`).
    private static func explainOptions(_ json: JSONValue?) throws(HearthError) -> Bool? {
        guard let json else { return nil }
        let reader = try JSONObjectReader(json, at: "explainOptions", allowed: ["analyze"])
        return try reader.bool("analyze") ?? false
    }

    private static func withLimit(_ query: StructuredQuery, _ limit: Int) -> StructuredQuery {
        var limited = query
        limited.limit = limit
        return limited
    }

    /// Firestore's `explainMetrics`: the plan, and with `analyze` the execution statistics.
    private static func appendExplain(
        _ plans: [String], stats: (returned: Int, entries: Int, documents: Int)?, to out: inout [UInt8]
    ) {
        out.append(contentsOf: #""explainMetrics":{"planSummary":{"indexesUsed":["#.utf8)
        for (index, plan) in plans.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"plan":"#.utf8)
            JSONWriter.appendString(plan, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: "]}".utf8)
        if let stats {
            out.append(
                contentsOf:
                    #","executionStats":{"resultsReturned":"\#(stats.returned)","readOperations":"\#(stats.documents)","debugStats":{"index_entries_scanned":"\#(stats.entries)","documents_scanned":"\#(stats.documents)"}}"#
                    .utf8)
        }
        out.append(UInt8(ascii: "}"))
    }
}
