public import Foundation
public import Hearth
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A problem starting or talking to the server under test.
public struct HarnessError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// Servers still running (by process ID) and directories still to remove, handled when the test process exits so a
/// failed or hurried run leaves neither behind.
private let liveServers = Mutex<Set<Int32>>([])
private let leftoverDirectories = Mutex<Set<URL>>([])
private let installExitHook: Void = {
    atexit {
        // At exit, on the main thread, waiting is fine: a server still writing its data would otherwise refill a
        // directory while it is being removed.
        for pid in liveServers.withLock({ $0 }) {
            kill(pid, SIGKILL)
            waitpid(pid, nil, 0)
        }
        for directory in leftoverDirectories.withLock({ $0 }) { try? FileManager.default.removeItem(at: directory) }
    }
}()

/// Removes `directory` when the test process exits, unless something removed it before.
public func removeAtExit(_ directory: URL) {
    _ = installExitHook
    leftoverDirectories.withLock { _ = $0.insert(directory) }
}

/// Resumes everyone waiting for a process to exit, from its termination handler — never by blocking a thread.
private final class ExitSignal: Sendable {
    private let state = Mutex<(exited: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func fire() {
        let waiters = state.withLock { state in
            state.exited = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let exited = state.withLock { state in
                if !state.exited { state.waiters.append(continuation) }
                return state.exited
            }
            if exited { continuation.resume() }
        }
    }
}

/// A real `hearth serve --dev` on 127.0.0.1 with a fresh port and data directory — the one harness of the tests
/// that drive the server through the SDK (the SDK's own, the typed layer's, the examples' and the seeds'). The
/// end-to-end tests, which speak raw HTTP, have theirs in Tests/EndToEndTests/Support.
public final class TestServer: Sendable {
    let process: Process
    /// The server's own directory (data, logs, client storage).
    public let directory: URL
    /// `http://127.0.0.1:PORT`.
    public let baseURL: URL
    private let exit: ExitSignal

    private init(process: Process, directory: URL, baseURL: URL, exit: ExitSignal) {
        self.process = process
        self.directory = directory
        self.baseURL = baseURL
        self.exit = exit
    }

    /// The package's root directory.
    public static var packageRoot: URL {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root
    }

    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["HEARTH_BINARY"], !path.isEmpty { return path }
        return packageRoot.appendingPathComponent(".build/debug/hearth").path
    }

    /// Starts `hearth serve --dev` with `arguments` added and waits (at most 20 s) for its `listening on` line. With
    /// `directory` and `port`, a restart of an earlier server on its data and address. `environment` adds variables
    /// (such as the test-only `HEARTH_TEST_EXIT_AFTER_RECEIPT`); the test process's own `HEARTH_*` are not passed on.
    public static func start(
        arguments: [String] = [], directory reused: URL? = nil, port: Int = 0, environment: [String: String] = [:]
    ) async throws -> TestServer {
        _ = installExitHook
        let directory =
            reused ?? FileManager.default.temporaryDirectory.appendingPathComponent("hearth-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        removeAtExit(directory)
        let stdoutURL = directory.appendingPathComponent("stdout.log")
        let stderrURL = directory.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw HarnessError("No hearth binary at \(binary): run `swift build` first or set HEARTH_BINARY.")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments =
            [
                "serve", "--host", "127.0.0.1", "--port", String(port), "--data",
                directory.appendingPathComponent("data").path, "--dev",
            ] + arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
            .merging(environment) { _, added in added }
        process.standardInput = FileHandle.nullDevice
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        process.standardOutput = stdout
        process.standardError = stderr
        let exit = ExitSignal()
        process.terminationHandler = { _ in exit.fire() }
        try process.run()
        // The child has its own copies; `Process` would keep these open for as long as it lives.
        try? stdout.close()
        try? stderr.close()
        let pid = process.processIdentifier
        liveServers.withLock { _ = $0.insert(pid) }
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let output = (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? ""
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }),
                output.contains("\(line)\n"), let url = URL(string: String(line.dropFirst("listening on ".count)))
            {
                return TestServer(process: process, directory: directory, baseURL: url, exit: exit)
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        kill(pid, SIGKILL)
        let log = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
        throw HarnessError("hearth serve did not start. stderr:\n\(log.suffix(2000))")
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

    /// Stops the server (SIGTERM) and waits for it to exit, keeping its data, for a restart with
    /// ``start(arguments:directory:port:environment:)``.
    public func halt() async {
        let pid = process.processIdentifier
        if process.isRunning { kill(pid, SIGTERM) }
        await exit.wait()
        liveServers.withLock { _ = $0.remove(pid) }
    }

    /// Waits for the server to exit on its own (as `HEARTH_TEST_EXIT_AFTER_RECEIPT` makes it), keeping its data.
    public func exited() async {
        await exit.wait()
        liveServers.withLock { _ = $0.remove(process.processIdentifier) }
    }

    /// Stops the server and removes its data once it has exited, without waiting (callable from `defer`).
    public func stop() {
        let pid = process.processIdentifier
        if process.isRunning { kill(pid, SIGTERM) }
        let directory = self.directory
        let exit = self.exit
        Task {
            await exit.wait()
            liveServers.withLock { _ = $0.remove(pid) }
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
