import HearthCore
import HearthGRPC
import HearthHTTP
import HearthStore

/// The `google.firestore.v1.Firestore` gRPC service: each method decodes its protobuf request into the model REST
/// decodes its JSON into, runs the same operations on the same database (``DocumentsAPI``'s store, rules, listen
/// hub and read workers) and encodes the answer as protobuf — one model, two encodings.
struct FirestoreGRPCService: Sendable {
    /// The document API of the database a request names, found as REST finds it: the project its name (and the
    /// caller's credential) is for, the database opened as REST opens it, and the same refusals of a project or
    /// database this server does not serve.
    let documents: @Sendable (DatabaseName, HTTPRequest) throws(HearthError) -> DocumentsAPI

    /// The service's name in a method's path, `/google.firestore.v1.Firestore/{method}`.
    static let serviceName = "google.firestore.v1.Firestore"

    /// Runs one call to its end: reads its requests from `requests`, sends its answers to `answers`.
    /// - Throws: the call's status when it is not OK (the transport sends it as `grpc-status` and `grpc-message`).
    func serve(
        _ call: GRPCCall, requests: AsyncThrowingStream<[UInt8], any Error>, answers: some GRPCAnswers
    ) async throws(HearthError) {
        switch call.method {
        case "GetDocument": try await answer(try await getDocument(try await only(requests), call), to: answers)
        case "ListDocuments": try await answer(try await listDocuments(try await only(requests), call), to: answers)
        case "ListCollectionIds":
            try await answer(try await listCollectionIDs(try await only(requests), call), to: answers)
        case "BatchGetDocuments": try await batchGetDocuments(try await only(requests), call, answers)
        case "RunQuery": try await runQuery(try await only(requests), call, answers)
        case "RunAggregationQuery": try await runAggregationQuery(try await only(requests), call, answers)
        case "PartitionQuery": try await answer(try await partitionQuery(try await only(requests), call), to: answers)
        case "CreateDocument": try await answer(try await createDocument(try await only(requests), call), to: answers)
        case "UpdateDocument": try await answer(try await updateDocument(try await only(requests), call), to: answers)
        case "DeleteDocument": try await answer(try await deleteDocument(try await only(requests), call), to: answers)
        case "Commit": try await answer(try await commit(try await only(requests), call), to: answers)
        case "BatchWrite": try await answer(try await batchWrite(try await only(requests), call), to: answers)
        case "BeginTransaction":
            try await answer(try beginTransaction(try await only(requests), call), to: answers)
        case "Rollback": try await answer(try rollback(try await only(requests), call), to: answers)
        case "Listen": try await listen(call, requests: requests, answers: answers)
        case "Write": try await writeStream(call, requests: requests, answers: answers)
        default:
            throw HearthError(.unimplemented, "Method not found: \(Self.serviceName)/\(call.method)")
        }
    }

    /// The one request message of a unary or server-streaming call.
    /// - Throws: `INTERNAL` for none or more than one, as gRPC servers answer a client that broke the method's
    ///   shape; `CANCELLED` when the client went away first.
    func only(_ requests: AsyncThrowingStream<[UInt8], any Error>) async throws(HearthError) -> [UInt8] {
        var received: [UInt8]?
        do {
            for try await message in requests {
                guard received == nil else {
                    throw HearthError(.internal, "Too many requests: this method takes exactly one request message.")
                }
                received = message
            }
        } catch let error as HearthError {
            throw error
        } catch {
            throw HearthError(.cancelled, "The call was cancelled before its request arrived.")
        }
        guard let received else {
            throw HearthError(.internal, "No request message: this method takes exactly one request message.")
        }
        return received
    }

    /// Sends a unary method's one answer.
    func answer(_ message: [UInt8], to answers: some GRPCAnswers) async throws(HearthError) {
        try await send(message, to: answers)
    }

    /// Sends one answer; a call the client has left ends with `CANCELLED`.
    func send(_ message: [UInt8], to answers: some GRPCAnswers) async throws(HearthError) {
        do {
            try await answers.send(message)
        } catch let error as HearthError {
            throw error
        } catch {
            throw HearthError(.cancelled, "The client cancelled the call.")
        }
    }

    /// The database API `database` names, for `call`'s caller, and the request its credential is judged by.
    func api(_ database: DatabaseName, _ call: GRPCCall) throws(HearthError) -> (DocumentsAPI, HTTPRequest) {
        let caller = call.credentialRequest(for: database)
        let api = try documents(database, caller)
        try api.checkDatabase(database)
        return (api, caller)
    }

    /// What a read request's `consistency_selector` asks for: no transaction, an open one, or one it begins
    /// (`isNew`, named in the first answer).
    /// - Throws: `UNIMPLEMENTED` for `read_time`, as REST answers it: Hearth keeps no old versions.
    func transaction(
        _ consistency: FirestoreRPC.ReadConsistency, _ api: DocumentsAPI, caller: HTTPRequest
    ) throws(HearthError) -> (TransactionID?, isNew: Bool) {
        switch consistency {
        case .latest: return (nil, false)
        case .transaction(let id): return (id, false)
        case .newTransaction(let mode):
            return (try api.store.beginTransaction(mode, caller: try api.transactionCaller(caller)), true)
        case .readTime:
            try api.rejectReadTime("")
            return (nil, false)
        }
    }

    /// Runs blocking store work on the database's read workers (or inline when it has none).
    func onWorker<T: Sendable>(
        _ api: DocumentsAPI, _ work: @escaping @Sendable () throws(HearthError) -> T
    ) async throws(HearthError) -> T {
        guard let workers = api.readWorkers else { return try work() }
        return try await workers.run(work)
    }

    /// Commits through the one write path and waits for the commit to be durable.
    func commit(
        _ writes: [Write], _ api: DocumentsAPI, database: DatabaseName, transaction: TransactionID?,
        judge: CommitJudge?
    ) async throws(HearthError) -> CommitResult {
        let result: Result<CommitResult, HearthError> = await withCheckedContinuation { continuation in
            api.store.commit(writes, in: database, transaction: transaction, judge: judge) { result in
                continuation.resume(returning: result)
            }
        }
        return try result.get()
    }
}
