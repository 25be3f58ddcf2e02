package import HearthCore
package import HearthHTTP

extension HearthApplication {
    /// Runs one gRPC call of the path `/{service}/{method}` with its metadata and request messages, sending each
    /// answer to `send`; returns the call's status (`nil` for OK). What tests call without a socket; the HTTP/2
    /// transport calls the same service for every stream.
    package func serveGRPC(
        path: String, metadata: HTTPHeaders, remoteAddress: String,
        requests: AsyncThrowingStream<[UInt8], any Error>, send: @escaping @Sendable ([UInt8]) async throws -> Void
    ) async -> HearthError? {
        await firestoreGRPC.serve(
            path: path, metadata: metadata, remoteAddress: remoteAddress, requests: requests, send: send)
    }
}

extension FirestoreGRPCService {
    /// Runs one call of the path `/{service}/{method}`; returns its status (`nil` for OK).
    func serve(
        path: String, metadata: HTTPHeaders, remoteAddress: String,
        requests: AsyncThrowingStream<[UInt8], any Error>, send: @escaping @Sendable ([UInt8]) async throws -> Void
    ) async -> HearthError? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].isEmpty, parts[1] == Self.serviceName else {
            return HearthError(.unimplemented, "Method not found: \(path.prefix(200))")
        }
        let call = GRPCCall(method: String(parts[2]), metadata: metadata, remoteAddress: remoteAddress)
        do throws(HearthError) {
            try await serve(call, requests: requests, answers: ClosureAnswers(send: send))
            return nil
        } catch {
            return error
        }
    }
}

/// Answers handed to a closure.
private struct ClosureAnswers: GRPCAnswers {
    let send: @Sendable ([UInt8]) async throws -> Void

    func send(_ message: [UInt8]) async throws { try await send(message) }
}
