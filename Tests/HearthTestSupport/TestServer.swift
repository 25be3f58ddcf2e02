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

/// Servers still running, killed when the test process exits so a failed run leaves none behind.
private let liveServers = Mutex<Set<Int32>>([])
private let installExitHook: Void = {
    atexit {
        for pid in liveServers.withLock({ $0 }) { kill(pid, SIGKILL) }
    }
}()

/// A real `hearth serve --dev` on 127.0.0.1 with a fresh port and data directory, for tests of code built on the SDK
/// (the typed layer, the examples). The approach of Tests/HearthSDKTests/Support/HearthServer.swift, with extra
/// `serve` arguments (`--rules`, `--indexes`) and no restart.
public final class TestServer: Sendable {
    let process: Process
    /// The server's own directory (data, logs, client storage).
    public let directory: URL
    /// `http://127.0.0.1:PORT`.
    public let baseURL: URL

    private init(process: Process, directory: URL, baseURL: URL) {
        self.process = process
        self.directory = directory
        self.baseURL = baseURL
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

    /// Starts a server with `arguments` added to `serve --dev` and waits (at most 20 s) for its `listening on` line.
    public static func start(arguments: [String] = []) async throws -> TestServer {
        _ = installExitHook
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-models-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
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
                "serve", "--host", "127.0.0.1", "--port", "0", "--data", directory.appendingPathComponent("data").path,
                "--dev",
            ]
            + arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        process.standardInput = FileHandle.nullDevice
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        process.standardOutput = stdout
        process.standardError = stderr
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
                return TestServer(process: process, directory: directory, baseURL: url)
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        kill(pid, SIGKILL)
        let log = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
        throw HarnessError("hearth serve did not start. stderr:\n\(log.suffix(2000))")
    }

    /// Configures a new app, with its own name and storage directory, pointing at this server.
    public func app(_ label: String = "app") -> HearthApp {
        let name = "\(label)-\(UUID().uuidString.prefix(8))"
        let storage = directory.appendingPathComponent("clients/\(name)")
        HearthApp.configure(
            name: name,
            options: HearthOptions(serverURL: baseURL, projectID: "demo", apiKey: "test", storageDirectory: storage))
        return HearthApp.app(name: name)!
    }

    /// Stops the server (SIGTERM, then waits for it off the cooperative pool) and removes its data.
    public func stop() async {
        let process = process
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                process.waitUntilExit()
                continuation.resume()
            }
        }
        liveServers.withLock { _ = $0.remove(process.processIdentifier) }
        try? FileManager.default.removeItem(at: directory)
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
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
