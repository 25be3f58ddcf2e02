import HearthCore
import HearthHTTP
import HearthStore
import Synchronization

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
        let items = try body.array("writes") ?? []
        guard items.count <= Self.maxBatchWrites else {
            throw .invalidArgument(
                "A :batchWrite carries at most \(Self.maxBatchWrites) writes; this one has \(items.count).")
        }
        var writes: [Write] = []
        var paths: Set<ResourcePath> = []
        for (index, item) in items.enumerated() {
            let write = try Write(firestoreJSON: item, at: "writes[\(index)]", database: route.database)
            // Independent writes to one document would race each other; Firestore refuses the request.
            guard paths.insert(write.path).inserted else {
                throw .invalidArgument(
                    "Invalid value at 'writes[\(index)]': \(route.database.name(of: write.path)) is written more than once; a :batchWrite writes each document at most once."
                )
            }
            writes.append(write)
        }
        let judge = try access?.commitJudge(request, database: route.database)
        guard !writes.isEmpty else { return .response(Responses.json(Self.encodeBatch([]))) }
        return .deferred { [store, writes] respond in
            let outcomes = BatchOutcomes(count: writes.count)
            for (index, write) in writes.enumerated() {
                // One commit per write, through the one write path: each is judged, applied and fanned out alone.
                store.commit([write], in: route.database, transaction: nil, judge: judge) { result in
                    if let all = outcomes.record(result.map { $0.writeResults.first }, at: index) {
                        respond(Responses.json(Self.encodeBatch(all)))
                    }
                }
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

/// The outcomes of a batch's writes as their commits complete, in any order; hands back all of them, in request
/// order, to whichever completion records the last.
private final class BatchOutcomes: Sendable {
    private let state: Mutex<(outcomes: [Result<WriteResult?, HearthError>?], pending: Int)>

    init(count: Int) { state = Mutex((Array(repeating: nil, count: count), count)) }

    func record(_ outcome: Result<WriteResult?, HearthError>, at index: Int) -> [Result<WriteResult?, HearthError>]? {
        state.withLock { state in
            state.outcomes[index] = outcome
            state.pending -= 1
            return state.pending == 0 ? state.outcomes.compactMap { $0 } : nil
        }
    }
}
