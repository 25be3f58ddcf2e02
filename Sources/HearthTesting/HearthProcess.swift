import Foundation
import Synchronization
public import Testing

/// A real `hearth serve` child process on 127.0.0.1 with its own port and data directory.
public final class HearthProcess: Sendable {
    /// How to start the server.
    public struct Options: Sendable {
        /// `--host`; `nil` leaves it out.
        public var host: String? = "127.0.0.1"
        /// `--port`; `nil` leaves it out.
        public var port: String? = "0"
        /// Pass the data directory as `--data` (otherwise as `HEARTH_DATA`).
        public var dataAsFlag = true
        /// `--dev`.
        public var dev = true
        /// `--project`.
        public var project: String?
        /// `--log-level`.
        public var logLevel: String?
        /// Further arguments.
        public var extraArguments: [String] = []
        /// Environment variables added for the child.
        public var environment: [String: String] = [:]

        /// The defaults: dev mode on 127.0.0.1, a free port, the data directory as `--data`.
        public init() {}
    }

    /// How it was started.
    public let options: Options
    /// Its data directory.
    public let dataDirectory: TemporaryDirectory
    /// The process.
    public let child: ChildProcess
    /// `http://127.0.0.1:PORT`, as printed on the `listening on` line.
    public let baseURL: String
    /// The line the server printed once it accepted connections.
    public let listeningLine: String
    /// The port it listens on.
    public let port: Int
    /// A client for this server.
    public let client: HTTPClient
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

    /// Starts a server and waits (at most 20 s, 60 s on PostgreSQL) for its `listening on` line. With `dataDirectory`, the server
    /// reuses it (a restart); otherwise it gets a fresh temporary one. The directory is removed when this object
    /// goes away, unless ownership was passed on by `restart()`.
    public static func start(
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
        if !arguments.contains("--store"), let store = try PostgresTestStore.url(for: directory) {
            arguments += ["--store", store]
        }
        let child = try ChildProcess(arguments: arguments, environment: environment)
        // On PostgreSQL a fresh database first gets the whole schema (a few seconds alone), and a run starts many
        // servers at once on a loaded machine: past 20 s there is not a hang.
        let startLimit = TestStore.isPostgres ? 60 : 20
        let deadline = ContinuousClock.now + .seconds(startLimit)
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
                    "hearth serve printed no listening line within \(startLimit) s. stderr:\n\(child.stderr.suffix(4000))"
                )
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Standard error so far.
    public var stderr: String { child.stderr }

    /// `--store` and the PostgreSQL database this server runs on, for `hearth` commands that read its store (empty
    /// on SQLite, where `--data` says it all).
    public var storeArguments: [String] {
        guard let store = try? PostgresTestStore.url(for: dataDirectory) else { return [] }
        return ["--store", store]
    }

    /// Sends SIGTERM and waits (bounded) for the exit.
    @discardableResult
    public func stop() async throws -> Termination {
        child.signal(SIGTERM)
        return try await child.waitForExit(timeout: .seconds(30))
    }

    /// Sends SIGKILL and waits for the process to be gone.
    @discardableResult
    public func kill9() async throws -> Termination {
        child.signal(SIGKILL)
        return try await child.waitForExit()
    }

    /// Starts a new server on the same data directory (after `stop()` or `kill9()`); the new server takes over
    /// removing the directory.
    public func restart(_ options: Options? = nil) async throws -> HearthProcess {
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
public func withHearth<R>(
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
public struct SharedHearth: SuiteTrait, TestScoping {
    @TaskLocal static var current: HearthProcess?

    /// How the suite's server is started.
    public let options: HearthProcess.Options

    /// A trait starting the server with `options`.
    public init(options: HearthProcess.Options) { self.options = options }

    /// The suite's server.
    public static var server: HearthProcess {
        get throws {
            guard let current else { throw HarnessError("No shared server: add .sharedHearth to the suite") }
            return current
        }
    }

    /// Not applied again to each test: the suite's one server serves them all.
    public var isRecursive: Bool { false }

    /// Starts the server, runs the suite, stops the server and expects a clean exit.
    public func provideScope(
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
    public static var sharedHearth: SharedHearth { SharedHearth(options: HearthProcess.Options()) }
}
