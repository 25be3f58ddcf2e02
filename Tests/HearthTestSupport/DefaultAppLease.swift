import Foundation
import Hearth

/// The default app (`HearthApp.configure(options:)`, reached through `Auth.auth()`, `Firestore.firestore()`,
/// `Database.database()`) is one per process, so tests that point it at their own server take turns, across every
/// suite and target in the test process.
actor DefaultAppLease {
    static let shared = DefaultAppLease()
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty { held = false } else { waiting.removeFirst().resume() }
    }
}

/// Runs `body` against a fresh server started with `arguments`, with the default app pointed at it (as an app's
/// `FirebaseApp.configure()` would) and held by this test alone until `body` ends.
public func withDefaultAppServer<Result>(
    arguments: [String] = [], isolation: isolated (any Actor)? = #isolation,
    _ body: (TestServer) async throws -> Result
) async throws -> Result {
    await DefaultAppLease.shared.acquire()
    do {
        let result = try await withServer(arguments: arguments) { server in
            HearthApp.configure(
                options: HearthOptions(
                    serverURL: server.baseURL, projectID: "demo", apiKey: "seed",
                    storageDirectory: server.directory.appendingPathComponent("clients/\(UUID().uuidString)")))
            return try await body(server)
        }
        await DefaultAppLease.shared.release()
        return result
    } catch {
        await DefaultAppLease.shared.release()
        throw error
    }
}
