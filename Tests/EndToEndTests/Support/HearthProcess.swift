import Foundation
import Synchronization
import Testing

/// A problem starting, talking to or stopping the server under test.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Where the `hearth` binary under test lives: `HEARTH_BINARY`, or the package's debug build.
enum HearthBinary {
    static var path: String {
        if let path = ProcessInfo.processInfo.environment["HEARTH_BINARY"], !path.isEmpty { return path }
        // …/Tests/EndToEndTests/Support/HearthProcess.swift → package root.
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        return root.appendingPathComponent(".build/debug/hearth").path
    }
}

/// How a child process ended.
enum Termination: Equatable, CustomStringConvertible {
    case exit(Int32)
    case signal(Int32)

    var description: String {
        switch self {
        case .exit(let status): "exit status \(status)"
        case .signal(let number): "signal \(number)"
        }
    }
}

/// A fresh directory under the system temporary directory, removed by `remove()`.
final class TemporaryDirectory: Sendable {
    let url: URL
    var path: String { url.path }

    init(_ label: String = "hearth-e2e") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    /// The names of the files in the directory.
    func contents() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }
}

/// Child processes still running, killed when the test process exits so a failed run leaves no server behind.
private let liveProcesses = Mutex<Set<Int32>>([])
private let installExitHook: Void = {
    atexit {
        for pid in liveProcesses.withLock({ $0 }) { kill(pid, SIGKILL) }
    }
}()

/// Runs a child process with stdout and stderr captured to files.
final class ChildProcess: @unchecked Sendable {
    let process: Process
    let stdoutURL: URL
    let stderrURL: URL
    private let logs: TemporaryDirectory

    init(arguments: [String], environment overrides: [String: String]) throws {
        _ = installExitHook
        logs = try TemporaryDirectory("hearth-e2e-logs")
        stdoutURL = logs.url.appendingPathComponent("stdout")
        stderrURL = logs.url.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let binary = HearthBinary.path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw HarnessError("No hearth binary at \(binary): run `swift build` first or set HEARTH_BINARY.")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        // The parent's HEARTH_* variables must not leak into the server under test.
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        environment.merge(overrides) { $1 }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // The child has its own copies. The test process starts hundreds of servers and `Process` keeps these
        // handles for as long as it lives, so without this every server left two descriptors open.
        try? stdout.close()
        try? stderr.close()
        self.process = process
        let pid = process.processIdentifier
        liveProcesses.withLock { _ = $0.insert(pid) }
    }

    var pid: Int32 { process.processIdentifier }
    var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// The termination, once the process has ended.
    var termination: Termination? {
        guard !process.isRunning else { return nil }
        liveProcesses.withLock { _ = $0.remove(process.processIdentifier) }
        return process.terminationReason == .exit
            ? .exit(process.terminationStatus) : .signal(process.terminationStatus)
    }

    /// Waits (bounded) for the process to end.
    func waitForExit(timeout: Duration = .seconds(20)) async throws -> Termination {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let termination { return termination }
            if ContinuousClock.now >= deadline {
                kill(pid, SIGKILL)
                throw HarnessError(
                    "hearth (pid \(pid)) did not exit within \(timeout); killed it. stderr:\n\(stderr.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    func signal(_ number: Int32) { if process.isRunning { kill(pid, number) } }

    /// Removes the captured output files.
    func removeLogs() { logs.remove() }

    deinit {
        let pid = process.processIdentifier
        if process.isRunning { kill(pid, SIGKILL) }
        liveProcesses.withLock { _ = $0.remove(pid) }
        logs.remove()
    }
}

/// Runs `hearth` with `arguments` to completion: the command-line contract outside `serve`.
func runHearth(
    _ arguments: [String], environment: [String: String] = [:]
) async throws -> (
    termination: Termination, stdout: String, stderr: String
) {
    let child = try ChildProcess(arguments: arguments, environment: environment)
    let termination = try await child.waitForExit()
    return (termination, child.stdout, child.stderr)
}

/// A real `hearth serve` child process on 127.0.0.1 with its own port and data directory.
final class HearthProcess: Sendable {
    /// How to start the server.
    struct Options: Sendable {
        /// `--host`; `nil` leaves it out.
        var host: String? = "127.0.0.1"
        /// `--port`; `nil` leaves it out.
        var port: String? = "0"
        /// Pass the data directory as `--data` (otherwise as `HEARTH_DATA`).
        var dataAsFlag = true
        /// `--dev`.
        var dev = true
        /// `--project`.
        var project: String?
        /// `--log-level`.
        var logLevel: String?
        /// Further arguments.
        var extraArguments: [String] = []
        /// Environment variables added for the child.
        var environment: [String: String] = [:]
    }

    let options: Options
    let dataDirectory: TemporaryDirectory
    let child: ChildProcess
    /// `http://127.0.0.1:PORT`, as printed on the `listening on` line.
    let baseURL: String
    /// The line the server printed once it accepted connections.
    let listeningLine: String
    let port: Int
    /// A client for this server.
    let client: HTTPClient
    private let ownsDataDirectory: Mutex<Bool>

    private init(options: Options, dataDirectory: TemporaryDirectory, child: ChildProcess, line: String) throws {
        self.options = options
        self.dataDirectory = dataDirectory
        self.child = child
        listeningLine = line
        baseURL = String(line.dropFirst("listening on ".count))
        guard let port = baseURL.split(separator: ":").last.flatMap({ Int($0) }) else {
            throw HarnessError("Cannot read the port from \"\(line)\"")
        }
        self.port = port
        client = HTTPClient(baseURL: baseURL)
        ownsDataDirectory = Mutex(true)
    }

    /// Starts a server and waits (at most 20 s) for its `listening on` line. With `dataDirectory`, the server
    /// reuses it (a restart); otherwise it gets a fresh temporary one. The directory is removed when this object
    /// goes away, unless ownership was passed on by `restart()`.
    static func start(
        _ options: Options = Options(), dataDirectory: TemporaryDirectory? = nil
    ) async throws -> HearthProcess {
        let directory = try dataDirectory ?? TemporaryDirectory()
        var arguments = ["serve"]
        var environment = options.environment
        if let host = options.host { arguments += ["--host", host] }
        if let port = options.port { arguments += ["--port", port] }
        if options.dataAsFlag {
            arguments += ["--data", directory.path]
        } else {
            environment["HEARTH_DATA"] = directory.path
        }
        if options.dev { arguments.append("--dev") }
        if let project = options.project { arguments += ["--project", project] }
        if let level = options.logLevel { arguments += ["--log-level", level] }
        arguments += options.extraArguments
        let child = try ChildProcess(arguments: arguments, environment: environment)
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            let output = child.stdout
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("listening on http://") }),
                output.contains("\(line)\n")
            {
                return try HearthProcess(options: options, dataDirectory: directory, child: child, line: String(line))
            }
            if let termination = child.termination {
                if dataDirectory == nil { directory.remove() }
                throw HarnessError(
                    "hearth serve ended (\(termination)) before listening. stderr:\n\(child.stderr.suffix(4000))")
            }
            if ContinuousClock.now >= deadline {
                child.signal(SIGKILL)
                if dataDirectory == nil { directory.remove() }
                throw HarnessError(
                    "hearth serve printed no listening line within 20 s. stderr:\n\(child.stderr.suffix(4000))")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Standard error so far.
    var stderr: String { child.stderr }

    /// Sends SIGTERM and waits (bounded) for the exit.
    @discardableResult
    func stop() async throws -> Termination {
        child.signal(SIGTERM)
        return try await child.waitForExit(timeout: .seconds(30))
    }

    /// Sends SIGKILL and waits for the process to be gone.
    @discardableResult
    func kill9() async throws -> Termination {
        child.signal(SIGKILL)
        return try await child.waitForExit()
    }

    /// Starts a new server on the same data directory (after `stop()` or `kill9()`); the new server takes over
    /// removing the directory.
    func restart(_ options: Options? = nil) async throws -> HearthProcess {
        if child.termination == nil { throw HarnessError("restart() needs the old server to have stopped") }
        let next = try await HearthProcess.start(options ?? self.options, dataDirectory: dataDirectory)
        ownsDataDirectory.withLock { $0 = false }
        return next
    }

    deinit {
        child.signal(SIGKILL)
        if ownsDataDirectory.withLock({ $0 }) {
            // Give the killed process a moment to release its files.
            for _ in 0..<200 where child.process.isRunning { usleep(5_000) }
            dataDirectory.remove()
        }
    }
}

/// Runs `body` with a freshly started server, then stops it (SIGTERM) and removes its data.
func withHearth<R>(
    _ options: HearthProcess.Options = HearthProcess.Options(), _ body: (HearthProcess) async throws -> R
) async throws -> R {
    let server = try await HearthProcess.start(options)
    do {
        let result = try await body(server)
        try await server.stop()
        return result
    } catch {
        _ = try? await server.kill9()
        throw error
    }
}

/// One server shared by every test of a suite: the suite's tests use unique collection names, so they never
/// collide. Apply as `@Suite(.sharedHearth)`; tests read it as `try SharedHearth.server`.
struct SharedHearth: SuiteTrait, TestScoping {
    @TaskLocal static var current: HearthProcess?

    let options: HearthProcess.Options

    /// The suite's server.
    static var server: HearthProcess {
        get throws {
            guard let current else { throw HarnessError("No shared server: add .sharedHearth to the suite") }
            return current
        }
    }

    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if Self.current != nil {
            try await function()
            return
        }
        let server = try await HearthProcess.start(options)
        do {
            try await Self.$current.withValue(server) { try await function() }
        } catch {
            _ = try? await server.kill9()
            throw error
        }
        let termination = try await server.stop()
        #expect(
            termination == .exit(0), "shared server stopped with \(termination); stderr:\n\(server.stderr.suffix(2000))"
        )
    }
}

extension Trait where Self == SharedHearth {
    /// One dev-mode server for the whole suite.
    static var sharedHearth: SharedHearth { SharedHearth(options: HearthProcess.Options()) }
}

/// A value shared between concurrent tasks.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value { mutex.withLock { $0 } }
    @discardableResult
    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}
