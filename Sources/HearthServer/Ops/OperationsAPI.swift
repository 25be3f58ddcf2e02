import HearthCore
import HearthHTTP
import HearthStore

/// `/healthz` and `/metrics` (the emulator's wipe is per database: `EmulatorWipeAPI`).
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
        return nil
    }
}
