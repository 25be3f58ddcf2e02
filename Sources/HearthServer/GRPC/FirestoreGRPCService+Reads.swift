import HearthCore
import HearthGRPC
import HearthHTTP
import HearthStore

extension FirestoreGRPCService {
    /// `GetDocument`: a `Document`, or `NOT_FOUND`.
    func getDocument(_ bytes: [UInt8], _ call: GRPCCall) async throws(HearthError) -> [UInt8] {
        let request = try FirestoreRPC.GetDocumentRequest(protobuf: bytes)
        let (api, caller) = try api(request.database, call)
        let (transaction, _) = try transaction(request.consistency, api, caller: caller)
        let document = try api.readDocument(
            at: request.path, database: request.database, transaction: transaction, caller: caller)
        var writer = ProtoWriter()
        try document.writeProtobuf(to: &writer, database: request.database, mask: request.mask)
        return writer.bytes
    }

    /// `ListDocuments`: one page of a collection, missing documents included when asked.
    func listDocuments(_ bytes: [UInt8], _ call: GRPCCall) async throws(HearthError) -> [UInt8] {
        let request = try FirestoreRPC.ListDocumentsRequest(protobuf: bytes)
        let (api, caller) = try api(request.database, call)
        if case .transaction = request.consistency {
            throw HearthError(
                .unimplemented, "Listing in a transaction is not supported; use RunQuery with the transaction.")
        }
        _ = try transaction(request.consistency, api, caller: caller)
        let orderBy = try ListOrderBy.parse(request.orderBy)
        return try await onWorker(api) { () throws(HearthError) in
            let page = try api.listPage(
                of: request.collection, database: request.database, pageSize: request.pageSize,
                pageToken: request.pageToken, orderBy: orderBy, showMissing: request.showMissing, caller: caller)
            return try FirestoreRPC.listDocumentsResponse(page, database: request.database, mask: request.mask)
        }
    }

    /// `ListCollectionIds`: one page of the IDs of the collections under a document or the root.
    func listCollectionIDs(_ bytes: [UInt8], _ call: GRPCCall) async throws(HearthError) -> [UInt8] {
        let request = try FirestoreRPC.ListCollectionIDsRequest(protobuf: bytes)
        let (api, caller) = try api(request.database, call)
        if request.readTime != nil { try api.rejectReadTime("") }
        return try await onWorker(api) { () throws(HearthError) in
            let (ids, next) = try api.collectionIDPage(
                under: request.parent, pageSize: request.pageSize, pageToken: request.pageToken, caller: caller)
            return FirestoreRPC.listCollectionIDsResponse(ids, nextPageToken: next)
        }
    }

    /// `BatchGetDocuments`: one answer per named document, in the order named, `found` or `missing`; the first
    /// names a transaction the request begins.
    func batchGetDocuments(
        _ bytes: [UInt8], _ call: GRPCCall, _ answers: some GRPCAnswers
    ) async throws(HearthError) {
        let request = try FirestoreRPC.BatchGetDocumentsRequest(protobuf: bytes)
        let (api, caller) = try api(request.database, call)
        let (transaction, isNew) = try transaction(request.consistency, api, caller: caller)
        let documents = try await onWorker(api) { () throws(HearthError) in
            try api.readDocuments(
                at: request.documents, database: request.database, transaction: transaction, caller: caller)
        }
        let readTime = api.clock.now()
        if isNew, let transaction, request.documents.isEmpty {
            var writer = ProtoWriter()
            writer.writeBytes(3, transaction.bytes)
            writer.writeMessage(4) { readTime.writeProtobuf(to: &$0) }
            try await send(writer.bytes, to: answers)
        }
        for (index, (path, document)) in zip(request.documents, documents).enumerated() {
            try await send(
                try FirestoreRPC.batchGetResponse(
                    found: document, missing: path, database: request.database, mask: request.mask,
                    transaction: index == 0 && isNew ? transaction : nil, readTime: readTime),
                to: answers)
        }
    }

    /// `RunQuery`: one answer per document, in the query's order; an answer with no document when there are none,
    /// so the client learns the read time (and a transaction the request begins).
    func runQuery(_ bytes: [UInt8], _ call: GRPCCall, _ answers: some GRPCAnswers) async throws(HearthError) {
        let request = try FirestoreRPC.RunQueryRequest(protobuf: bytes)
        let (api, caller) = try api(request.database, call)
        if request.explainAnalyze != nil {
            throw HearthError(
                .unimplemented, "explainOptions over gRPC is not supported yet; the REST :runQuery answers it.")
        }
        try api.access?.authorizeQuery(caller, request.query, database: request.database)
        let (transaction, isNew) = try transaction(request.consistency, api, caller: caller)
        let results = try await onWorker(api) { () throws(HearthError) in
            try api.store.runQuery(request.query, transaction: transaction)
        }
        let readTime = api.clock.now()
        var first = true
        for document in results.documents {
            try await send(
                try FirestoreRPC.runQueryResponse(
                    document: document, database: request.database, transaction: first && isNew ? transaction : nil,
                    readTime: readTime),
                to: answers)
            first = false
        }
        if first {
            try await send(
                try FirestoreRPC.runQueryResponse(
                    document: nil, database: request.database, transaction: isNew ? transaction : nil,
                    readTime: readTime),
                to: answers)
        }
    }

    /// `RunAggregationQuery`: one answer with every alias's value.
    func runAggregationQuery(
        _ bytes: [UInt8], _ call: GRPCCall, _ answers: some GRPCAnswers
    ) async throws(HearthError) {
        let request = try FirestoreRPC.RunAggregationQueryRequest(protobuf: bytes)
        let (api, caller) = try api(request.database, call)
        if request.explainAnalyze != nil {
            throw HearthError(
                .unimplemented,
                "explainOptions over gRPC is not supported yet; the REST :runAggregationQuery answers it.")
        }
        try api.access?.authorizeQuery(caller, request.aggregation.query, database: request.database)
        let (transaction, isNew) = try transaction(request.consistency, api, caller: caller)
        let results = try await onWorker(api) { () throws(HearthError) in
            try api.store.runAggregation(request.aggregation, transaction: transaction)
        }
        try await send(
            FirestoreRPC.runAggregationQueryResponse(
                results.values, transaction: isNew ? transaction : nil, readTime: api.clock.now()),
            to: answers)
    }

    /// `PartitionQuery`: the query as one partition (no cursors), after the same checks a query gets.
    func partitionQuery(_ bytes: [UInt8], _ call: GRPCCall) async throws(HearthError) -> [UInt8] {
        let request = try FirestoreRPC.PartitionQueryRequest(protobuf: bytes)
        let (api, caller) = try api(request.database, call)
        try api.access?.authorizeQuery(caller, request.query, database: request.database)
        return FirestoreRPC.partitionQueryResponse()
    }
}
