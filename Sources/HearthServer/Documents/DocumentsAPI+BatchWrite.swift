import HearthCore
import HearthHTTP
import HearthStore

extension DocumentsAPI {
    /// The most writes one `:batchWrite` may carry, as Firestore's.
    static let maxBatchWrites = 500

    /// `POST …/documents:batchWrite`: writes applied independently, not atomically — each succeeds or fails on
    /// its own and the answer carries a `WriteResult` and a `google.rpc.Status` per write, in request order. What
    /// the admin clients' `BulkWriter` (and so `recursive_delete`) sends.
    func batchWrite(_ request: HTTPRequest, _ route: DocumentsRoute) throws(HearthError) -> HTTPReply {
        try RequestParameters.check(request, allowed: [])
        guard route.path.segments.isEmpty else {
            throw .invalidArgument(
                ":batchWrite is called on the documents root, …/databases/(default)/documents:batchWrite.")
        }
        let body = try JSONObjectReader(try RequestParameters.body(request), at: "", allowed: ["writes", "labels"])
        var writes: [Write] = []
        for (index, item) in (try body.array("writes") ?? []).enumerated() {
            writes.append(try Write(firestoreJSON: item, at: "writes[\(index)]", database: route.database))
        }
        try checkBatchWrites(writes, database: route.database)
        let judge = try access?.commitJudge(request, database: route.database)
        return .deferred { [self, writes] respond in
            applyIndependently(writes, database: route.database, judge: judge) { outcomes in
                respond(Responses.json(Self.encodeBatch(outcomes)))
            }
        }
    }

    /// `{"writeResults":[…],"status":[…]}`: an empty `WriteResult` and the error's status for a failed write, the
    /// write's result and an empty (OK) status for one that was applied.
    static func encodeBatch(_ outcomes: [Result<WriteResult?, HearthError>]) -> [UInt8] {
        var out: [UInt8] = Array(#"{"writeResults":["#.utf8)
        for (index, outcome) in outcomes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            if case .success(let result?) = outcome {
                appendWriteResult(result, to: &out)
            } else {
                out.append(contentsOf: "{}".utf8)
            }
        }
        out.append(contentsOf: #"],"status":["#.utf8)
        for (index, outcome) in outcomes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            switch outcome {
            case .success: out.append(contentsOf: "{}".utf8)
            case .failure(let error):
                out.append(contentsOf: #"{"code":\#(error.code.rawValue),"message":"#.utf8)
                JSONWriter.appendString(error.message, into: &out)
                out.append(UInt8(ascii: "}"))
            }
        }
        out.append(contentsOf: "]}".utf8)
        return out
    }
}
