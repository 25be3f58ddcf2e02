public import Foundation
public import Hearth
public import HearthTesting
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A problem starting or talking to the server under test (HearthTesting's, so both harnesses throw one type).
public typealias HarnessError = HearthTesting.HarnessError

/// Directories still to remove, handled when the test process exits so a failed or hurried run leaves none behind
/// (HearthTesting's `ChildProcess` kills servers still running).
private let leftoverDirectories = Mutex<Set<URL>>([])
private let installExitHook: Void = {
    atexit {
        for directory in leftoverDirectories.withLock({ $0 }) { try? FileManager.default.removeItem(at: directory) }
    }
}()

/// Removes `directory` when the test process exits, unless something removed it before.
public func removeAtExit(_ directory: URL) {
    _ = installExitHook
    leftoverDirectories.withLock { _ = $0.insert(directory) }
}

/// A real `hearth serve --dev` on 127.0.0.1 with a fresh port and data directory, for the tests that drive the
/// server through the SDK (the SDK's own, the typed layer's, the examples' and the seeds'): HearthTesting's live-binary
/// harness (`ChildProcess`) plus the SDK's side — apps configured against it, a directory for their storage.
public final class TestServer: Sendable {
    let child: ChildProcess
    /// The server's own directory (data, client storage).
    public let directory: URL
    /// `http://127.0.0.1:PORT`.
    public let baseURL: URL

    private init(child: ChildProcess, directory: URL, baseURL: URL) {
        self.child = child
        self.directory = directory
        self.baseURL = baseURL
    }

    /// The package's root directory.
    public static var packageRoot: URL { HearthBinary.packageRoot }

    /// Starts `hearth serve --dev` with `arguments` added and waits (at most 20 s) for its `listening on` line. With
    /// `directory` and `port`, a restart of an earlier server on its data and address. `environment` adds variables
    /// (such as the test-only `HEARTH_TEST_EXIT_AFTER_RECEIPT`); the test process's own `HEARTH_*` are not passed on.
    public static func start(
        arguments: [String] = [], directory reused: URL? = nil, port: Int = 0, environment: [String: String] = [:]
    ) async throws -> TestServer {
        let directory =
            reused ?? FileManager.default.temporaryDirectory.appendingPathComponent("hearth-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        removeAtExit(directory)
        let child = try ChildProcess(
            arguments: [
                "serve", "--host", "127.0.0.1", "--port", String(port), "--data",
                directory.appendingPathComponent("data").path, "--dev",
            ] + arguments
                + (arguments.contains("--store") ? [] : try TestStore.storeArguments(forDirectory: directory.path)),
            environment: environment)
        // A fresh PostgreSQL database first gets the whole schema: past 20 s there is not a hang there.
        let deadline = ContinuousClock.now + .seconds(TestStore.isPostgres ? 60 : 20)
        while ContinuousClock.now < deadline {
            let output = child.stdout
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }),
                output.contains("\(line)\n"), let url = URL(string: String(line.dropFirst("listening on ".count)))
            {
                return TestServer(child: child, directory: directory, baseURL: url)
            }
            if child.termination != nil { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        child.signal(SIGKILL)
        throw HarnessError("hearth serve did not start. stderr:\n\(child.stderr.suffix(2000))")
    }

    /// The port the server listens on.
    public var port: Int { baseURL.port ?? 0 }

    /// Configures a new app, with its own name and storage directory, pointing at this server.
    public func app(_ label: String = "app") -> HearthApp {
        app(named: "\(label)-\(UUID().uuidString.prefix(8))")
    }

    /// Configures the app `name`, with storage at `clients/NAME` in this server's directory. After
    /// `HearthApp.app(name:)?.delete()`, calling it again is a relaunch of the same app: same storage, so the same
    /// on-disk cache and write queues.
    public func app(named name: String) -> HearthApp {
        let storage = directory.appendingPathComponent("clients/\(name)")
        HearthApp.configure(
            name: name,
            options: HearthOptions(serverURL: baseURL, projectID: "demo", apiKey: "test", storageDirectory: storage))
        return HearthApp.app(name: name)!
    }

    /// Stops the server (SIGTERM) and waits (at most 60 s, then kills it) for it to exit, keeping its data, for a
    /// restart with ``start(arguments:directory:port:environment:)``.
    public func halt() async {
        child.signal(SIGTERM)
        _ = try? await child.waitForExit(timeout: .seconds(60))
    }

    /// Waits (at most 120 s, then kills it) for the server to exit on its own (as `HEARTH_TEST_EXIT_AFTER_RECEIPT`
    /// makes it), keeping its data.
    public func exited() async {
        _ = try? await child.waitForExit(timeout: .seconds(120))
    }

    /// Stops the server and removes its data once it has exited, without waiting (callable from `defer`).
    public func stop() {
        child.signal(SIGTERM)
        let directory = self.directory
        let child = self.child
        Task {
            _ = try? await child.waitForExit(timeout: .seconds(60))
            try? FileManager.default.removeItem(at: directory)
            leftoverDirectories.withLock { _ = $0.remove(directory) }
        }
    }

    /// The latest out-of-band code of `type` (`VERIFY_EMAIL`, `PASSWORD_RESET`) sent to `email`, from the dev outbox.
    public func oobCode(for email: String, type: String) async throws -> String? {
        let url = baseURL.appendingPathComponent("emulator/v1/projects/demo/oobCodes")
        let (data, _) = try await URLSession.shared.data(from: url)
        let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let codes = json?["oobCodes"] as? [[String: Any]] ?? []
        return codes.last { $0["email"] as? String == email && $0["requestType"] as? String == type }?["oobCode"]
            as? String
    }
}

/// A collection name unique to this run.
public func unique(_ label: String) -> String { "\(label)_\(UUID().uuidString.prefix(8).lowercased())" }

/// An email address unique to this run.
public func uniqueEmail() -> String { "user-\(UUID().uuidString.prefix(8).lowercased())@example.com" }

/// Polls `condition` every 20 ms until it holds or `seconds` pass; returns whether it held. For waiting on live
/// updates, never for timing assertions.
public func eventually(
    within seconds: Int = 10, _ condition: @Sendable () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}

/// Runs `body` against a fresh server started with `arguments`, and stops it (removing its data) however `body` ends.
public func withServer<Result>(
    arguments: [String] = [], isolation: isolated (any Actor)? = #isolation,
    _ body: (TestServer) async throws -> Result
) async throws -> Result {
    let server = try await TestServer.start(arguments: arguments)
    defer { server.stop() }
    return try await body(server)
}
