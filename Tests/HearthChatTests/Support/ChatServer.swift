import Foundation
import Hearth
import Synchronization
import Testing

/// A problem starting or stopping the server under test.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Servers still running, killed when the test process exits so a failed run leaves none behind.
private let liveServers = Mutex<Set<Int32>>([])
private let installExitHook: Void = {
    atexit {
        for pid in liveServers.withLock({ $0 }) { kill(pid, SIGKILL) }
    }
}()

/// A real `hearth serve --dev` on 127.0.0.1 (port 0, fresh data directory) running the chat example's tree rules,
/// `Examples/rules/chat.database.rules.json` — the approach of EndToEndTests/Support/HearthProcess.swift.
final class ChatServer: Sendable {
    static let root: URL = {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        return root
    }()

    let process: Process
    let directory: URL
    let baseURL: URL

    private init(process: Process, directory: URL, baseURL: URL) {
        self.process = process
        self.directory = directory
        self.baseURL = baseURL
    }

    static func start() async throws -> ChatServer {
        _ = installExitHook
        var binary = ProcessInfo.processInfo.environment["HEARTH_BINARY"] ?? ""
        if binary.isEmpty { binary = root.appendingPathComponent(".build/debug/hearth").path }
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw HarnessError("No hearth binary at \(binary): run `swift build` first or set HEARTH_BINARY.")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-chat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let stdoutURL = directory.appendingPathComponent("stdout.log")
        let stderrURL = directory.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "serve", "--host", "127.0.0.1", "--port", "0", "--data", directory.appendingPathComponent("data").path,
            "--dev", "--database-rules", root.appendingPathComponent("Examples/rules/chat.database.rules.json").path,
        ]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        process.standardInput = FileHandle.nullDevice
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // The child has its own copies; the test process, which starts many servers, must not keep these open.
        try? stdout.close()
        try? stderr.close()
        let pid = process.processIdentifier
        liveServers.withLock { _ = $0.insert(pid) }
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline && process.isRunning {
            let output = (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? ""
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }),
                output.contains("\(line)\n"), let url = URL(string: String(line.dropFirst("listening on ".count)))
            {
                return ChatServer(process: process, directory: directory, baseURL: url)
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        kill(pid, SIGKILL)
        let log = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: directory)
        throw HarnessError("hearth serve did not start. stderr:\n\(log.suffix(2000))")
    }

    /// Stops the server (SIGTERM, waiting without blocking a thread; SIGKILL after 20 s) and removes its data.
    func stop() async {
        let pid = process.processIdentifier
        if process.isRunning { kill(pid, SIGTERM) }
        let deadline = ContinuousClock.now + .seconds(20)
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        if process.isRunning { kill(pid, SIGKILL) }
        liveServers.withLock { _ = $0.remove(pid) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new app ("device") with its own name and session directory, pointing at this server.
    func app(_ label: String) -> HearthApp {
        let name = "\(label)-\(UUID().uuidString.prefix(8))"
        HearthApp.configure(
            name: name,
            options: HearthOptions(
                serverURL: baseURL, projectID: "demo", apiKey: "chat-tests",
                storageDirectory: directory.appendingPathComponent("clients/\(name)")))
        return HearthApp.app(name: name)!
    }
}

/// One server shared by the tests of a suite (each test signs up its own users, so they never collide).
struct SharedChatServer: SuiteTrait, TestScoping {
    @TaskLocal static var current: ChatServer?

    var isRecursive: Bool { false }

    static var server: ChatServer {
        get throws {
            guard let current else { throw HarnessError("No shared server: add .chatServer to the suite") }
            return current
        }
    }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if Self.current != nil {
            try await function()
            return
        }
        let server = try await ChatServer.start()
        do {
            try await Self.$current.withValue(server) { try await function() }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

extension Trait where Self == SharedChatServer {
    /// One dev-mode server with the chat rules for the whole suite.
    static var chatServer: SharedChatServer { SharedChatServer() }
}

/// An email address unique to this run.
func uniqueEmail(_ label: String = "user") -> String {
    "\(label)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
}

/// Waits (at most 10 s, polling without blocking a thread) until `condition` holds on the main actor; the test's
/// own `#expect` then reports the state if it never did.
@MainActor
func eventually(_ condition: @MainActor () -> Bool) async {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
}
