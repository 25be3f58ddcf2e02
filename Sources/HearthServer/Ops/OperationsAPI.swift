import HearthCore
import HearthHTTP
import HearthStore

/// `/healthz`, `/metrics` and the emulator's maintenance endpoints.
struct OperationsAPI: API {
    let store: any DocumentStoreAdministration
    let metrics: Metrics
    let configuration: ServerConfiguration
    let openConnections: @Sendable () -> Int
    /// Open document listen targets and tree streams, from the hubs.
    let listeners: @Sendable () -> (targets: Int, treeStreams: Int)

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        switch (request.method, request.path) {
        case ("GET", "/healthz"), ("HEAD", "/healthz"):
            return ("healthz", .response(Responses.json(Array(#"{"status":"ok"}"#.utf8))))
        case ("GET", "/metrics"):
            let statistics = store.statistics()
            let open = listeners()
            let text = metrics.render(
                Metrics.Samples(
                    openConnections: openConnections(), commits: statistics.commits, writes: statistics.writes,
                    failedCommits: statistics.failedCommits, databaseBytes: statistics.databaseBytes,
                    walBytes: statistics.walBytes, listenTargets: open.targets, treeListeners: open.treeStreams))
            return ("metrics", .response(Responses.text(text, contentType: "text/plain; version=0.0.4; charset=utf-8")))
        default:
            break
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false)
        // /emulator/v1/projects/{p}/databases/(default)/documents
        if parts.count == 8, parts[1] == "emulator", parts[2] == "v1", parts[3] == "projects", parts[5] == "databases",
            parts[7] == "documents"
        {
            return ("emulator.wipe", wipe(request))
        }
        return nil
    }

    private func wipe(_ request: HTTPRequest) -> HTTPReply {
        guard configuration.devMode else {
            return .response(
                Responses.error(HearthError(.permissionDenied, "The emulator endpoints are only served with --dev.")))
        }
        guard request.method == "DELETE" else {
            return .response(
                Responses.error(
                    .notFound("Method \(request.method) is not supported here; use DELETE to wipe all documents.")))
        }
        return .deferred { respond in
            store.deleteAllDocuments { result in
                switch result {
                case .success: respond(Responses.emptyObject)
                case .failure(let error): respond(Responses.error(error))
                }
            }
        }
    }
}
