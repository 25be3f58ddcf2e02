import HearthCore
import HearthHTTP
import HearthStore

/// `/healthz` (`{"status":"ok"}`, or 503 `{"status":"unavailable","error":…}` while the store's database is out
/// of reach) and `/metrics` (the emulator's wipe is per database: `EmulatorWipeAPI`).
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
            // A node whose database is out of reach answers nothing but 503s: a load balancer should send its
            // clients elsewhere until it can reach the database again.
            if let error = store.unavailability() {
                let body: JSONValue = ["status": "unavailable", "error": .string(error.message)]
                return ("healthz", .response(Responses.json(body.serialized(), status: 503)))
            }
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
