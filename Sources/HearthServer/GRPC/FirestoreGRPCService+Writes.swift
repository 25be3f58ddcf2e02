import HearthCore
import HearthGRPC
import HearthHTTP
import HearthStore

extension FirestoreGRPCService {
    /// `CreateDocument`: the new `Document`; `ALREADY_EXISTS` when the ID is taken.
    func createDocument(_ bytes: [UInt8], _ call: GRPCCall) async throws(HearthError) -> [UInt8] {
        let request = try FirestoreRPC.CreateDocumentRequest(protobuf: bytes)
        let path = request.collection.appending(request.documentID ?? AutoID.make())
        let write = Write(
            path: path, operation: .update(fields: request.fields, mask: nil), precondition: .exists(false))
        return try await commitOne(write, request.database, mask: request.mask, call)
    }

    /// `UpdateDocument`: the written `Document`.
    func updateDocument(_ bytes: [UInt8], _ call: GRPCCall) async throws(HearthError) -> [UInt8] {
        let request = try FirestoreRPC.UpdateDocumentRequest(protobuf: bytes)
        return try await commitOne(request.write, request.database, mask: request.mask, call)
    }

    /// `DeleteDocument`: `Empty`.
    func deleteDocument(_ bytes: [UInt8], _ call: GRPCCall) async throws(HearthError) -> [UInt8] {
        let request = try FirestoreRPC.DeleteDocumentRequest(protobuf: bytes)
        let (api, caller) = try api(request.database, call)
        let judge = try api.access?.commitJudge(caller, database: request.database)
        _ = try await commit([request.write], api, database: request.database, transaction: nil, judge: judge)
        return []
    }

    /// `Commit`: the writes applied atomically (ending the transaction, if one is given).
    func commit(_ bytes: [UInt8], _ call: GRPCCall) async throws(HearthError) -> [UInt8] {
        let request = try FirestoreRPC.CommitRequest(protobuf: bytes)
        let (api, caller) = try api(request.database, call)
        let judge = try api.access?.commitJudge(caller, database: request.database)
        let result = try await commit(
            request.writes, api, database: request.database, transaction: request.transaction, judge: judge)
        return FirestoreRPC.commitResponse(result)
    }

    /// `BatchWrite`: the writes applied independently, a result and a status for each.
    func batchWrite(_ bytes: [UInt8], _ call: GRPCCall) async throws(HearthError) -> [UInt8] {
        let request = try FirestoreRPC.BatchWriteRequest(protobuf: bytes)
        let (api, caller) = try api(request.database, call)
        try api.checkBatchWrites(request.writes, database: request.database)
        let judge = try api.access?.commitJudge(caller, database: request.database)
        let outcomes = await withCheckedContinuation { continuation in
            api.applyIndependently(request.writes, database: request.database, judge: judge) { outcomes in
                continuation.resume(returning: outcomes)
            }
        }
        return FirestoreRPC.batchWriteResponse(outcomes)
    }

    /// `BeginTransaction`.
    func beginTransaction(_ bytes: [UInt8], _ call: GRPCCall) throws(HearthError) -> [UInt8] {
        let request = try FirestoreRPC.BeginTransactionRequest(protobuf: bytes)
        let (api, caller) = try api(request.database, call)
        let id = try api.store.beginTransaction(request.mode, caller: try api.transactionCaller(caller))
        return FirestoreRPC.beginTransactionResponse(id)
    }

    /// `Rollback`: `Empty`.
    func rollback(_ bytes: [UInt8], _ call: GRPCCall) throws(HearthError) -> [UInt8] {
        let request = try FirestoreRPC.RollbackRequest(protobuf: bytes)
        let (api, _) = try api(request.database, call)
        try api.store.rollback(request.transaction)
        return []
    }

    /// Commits one write and answers with the resulting `Document`.
    private func commitOne(
        _ write: Write, _ database: DatabaseName, mask: [FieldPath]?, _ call: GRPCCall
    ) async throws(HearthError) -> [UInt8] {
        let (api, caller) = try api(database, call)
        let judge = try api.access?.commitJudge(caller, database: database)
        let result = try await commit([write], api, database: database, transaction: nil, judge: judge)
        guard let document = result.writeResults.first?.document else {
            throw .internal("The commit returned no document.")
        }
        var writer = ProtoWriter()
        try document.writeProtobuf(to: &writer, database: database, mask: mask)
        return writer.bytes
    }
}
