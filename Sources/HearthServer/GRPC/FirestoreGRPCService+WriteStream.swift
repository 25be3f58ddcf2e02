import HearthCore
import HearthGRPC
import HearthHTTP
import HearthStore

extension FirestoreGRPCService {
    /// `Write`: the stream the mobile SDKs send their pending writes on. The first request (the handshake) names
    /// the database and carries no writes; it is answered with the stream's ID and its first token. Every later
    /// request carries the token of the last answer the client received and writes that are committed atomically
    /// through the one write path, answered in order with a new token, their results and the commit time; a
    /// request without writes only acknowledges. A commit that fails ends the stream with its status, as Firestore
    /// does, and the SDK retries on a new stream.
    func writeStream(
        _ call: GRPCCall, requests: AsyncThrowingStream<[UInt8], any Error>, answers: some GRPCAnswers
    ) async throws(HearthError) {
        var iterator = requests.makeAsyncIterator()
        guard let first = try await nextMessage(&iterator) else { return }
        let handshake = try FirestoreRPC.WriteStreamRequest(protobuf: first)
        guard handshake.streamID.isEmpty, handshake.streamToken.isEmpty else {
            throw HearthError(
                .invalidArgument,
                "Resuming a Write stream is not supported: open a new stream and send the handshake (the database only)."
            )
        }
        guard handshake.writes.isEmpty else {
            throw HearthError(
                .invalidArgument, "The first request of a Write stream is the handshake: the database, without writes.")
        }
        let database = handshake.database
        let (api, caller) = try api(database, call)
        let streamID = AutoID.make()
        var sequence: UInt64 = 0
        try await send(
            FirestoreRPC.writeStreamResponse(streamID: streamID, streamToken: Self.token(sequence), commit: nil),
            to: answers)
        while let bytes = try await nextMessage(&iterator) {
            let request = try FirestoreRPC.WriteStreamRequest(protobuf: bytes, stream: database)
            guard request.database == database else {
                throw HearthError(
                    .invalidArgument,
                    "A Write stream writes one database, \(database); this request names \(request.database).")
            }
            guard let acknowledged = Self.sequence(of: request.streamToken), acknowledged <= sequence else {
                throw HearthError(
                    .invalidArgument, "Invalid stream_token: send the token of the last WriteResponse received.")
            }
            guard !request.writes.isEmpty else { continue }
            let judge = try api.access?.commitJudge(caller, database: database)
            let result = try await commit(request.writes, api, database: database, transaction: nil, judge: judge)
            sequence += 1
            try await send(
                FirestoreRPC.writeStreamResponse(streamID: "", streamToken: Self.token(sequence), commit: result),
                to: answers)
        }
    }

    /// A stream token: the number of the answer it came with, eight bytes big-endian.
    static func token(_ sequence: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: sequence >> (56 - 8 * UInt64($0))) }
    }

    /// The answer number a token names, `nil` for bytes this server never sent.
    static func sequence(of token: [UInt8]) -> UInt64? {
        guard token.count == 8 else { return nil }
        return token.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
