import HearthCore
import HearthGRPC
import HearthHTTP
import HearthListen

extension FirestoreGRPCService {
    /// `Listen`: one listen session of the database's hub for the call's lifetime — the same session the SSE and
    /// WebChannel channels open, so targets, resume tokens, `targetChange`s, document changes and existence filters
    /// are the hub's, judged by the same rules. Each request adds or removes a target; the call ends when the
    /// client cancels it or leaves, at its deadline, on an invalid request, or when the hub ends the session (a
    /// credential that stopped verifying). A client that closes its side keeps receiving.
    func listen(
        _ call: GRPCCall, requests: AsyncThrowingStream<[UInt8], any Error>, answers: some GRPCAnswers
    ) async throws(HearthError) {
        let sink = GRPCListenSink(budget: ListenSettings().bufferBytes)
        let outcome = await withTaskGroup(of: HearthError?.self) { group -> HearthError? in
            group.addTask {
                // The session's answers, until the hub ends it or the client stops reading.
                for await message in sink.messages where !message.isEmpty {
                    do throws(HearthError) {
                        try await send(message, to: answers)
                    } catch {
                        return error
                    }
                    sink.sent(message.count)
                }
                return nil
            }
            group.addTask {
                do throws(HearthError) {
                    try await submitRequests(call, requests, to: sink)
                    return nil
                } catch {
                    return error
                }
            }
            // Whichever side ends first ends the call: an invalid request, the hub closing the session, or the
            // client gone.
            let first = await group.next() ?? nil
            group.cancelAll()
            sink.close()
            return first
        }
        if let outcome { throw outcome }
    }

    /// Opens the session on the first request's database and submits every request to it; returns when the call is
    /// cancelled (or at once when the client closed its side before any request). The session is closed then.
    private func submitRequests(
        _ call: GRPCCall, _ requests: AsyncThrowingStream<[UInt8], any Error>, to sink: GRPCListenSink
    ) async throws(HearthError) {
        var opened: (endpoint: ListenEndpoint, id: String, caller: ListenCaller, database: DatabaseName)?
        defer { if let opened { opened.endpoint.hub.closeSession(opened.id) } }
        var iterator = requests.makeAsyncIterator()
        while let bytes = try await nextMessage(&iterator) {
            let message = try FirestoreRPC.ListenMessage(protobuf: bytes)
            if opened == nil {
                let (api, request) = try api(message.database, call)
                guard let endpoint = api.listen else {
                    throw HearthError(.unimplemented, "Listening is not served for this database.")
                }
                sink.limit(to: endpoint.settings.bufferBytes)
                let auth = try endpoint.authenticator.authenticate(request)
                let caller = ListenCaller(auth: auth)
                let id = try endpoint.hub.openSession(
                    database: message.database, caller: caller, sink: sink,
                    credentialStillValid: endpoint.authenticator.recheck(request, auth: auth))
                opened = (endpoint, id, caller, message.database)
            }
            guard let opened else { continue }
            guard message.database == opened.database else {
                throw HearthError(
                    .invalidArgument,
                    "A Listen stream serves one database, \(opened.database); this request names \(message.database).")
            }
            try opened.endpoint.hub.submit(message.request, session: opened.id, caller: opened.caller)
        }
        // The client closed its side: it sends no more requests but still listens (as `grpcurl` does after its
        // one request). The session lives until the call is cancelled, its deadline passes or the hub ends it.
        while opened != nil && !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
    }

    /// The next message of a streaming call, `nil` when the client has closed its side.
    /// - Throws: `CANCELLED` when the client went away.
    func nextMessage(
        _ iterator: inout AsyncThrowingStream<[UInt8], any Error>.Iterator
    ) async throws(HearthError) -> [UInt8]? {
        do {
            return try await iterator.next()
        } catch let error as HearthError {
            throw error
        } catch {
            throw HearthError(.cancelled, "The client cancelled the call.")
        }
    }
}
