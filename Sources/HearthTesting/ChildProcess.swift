public import Foundation
import Synchronization

/// Where the `hearth` binary under test lives: `HEARTH_BINARY`, or the package's debug build.
public enum HearthBinary {
    /// The binary's path.
    public static var path: String {
        if let path = ProcessInfo.processInfo.environment["HEARTH_BINARY"], !path.isEmpty { return path }
        return packageRoot.appendingPathComponent(".build/debug/hearth").path
    }

    /// The package's root directory (…/Sources/HearthTesting/ChildProcess.swift → three levels up).
    public static var packageRoot: URL {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root
    }
}

/// How a child process ended.
public enum Termination: Equatable, Sendable, CustomStringConvertible {
    /// It exited with this status.
    case exit(Int32)
    /// A signal ended it.
    case signal(Int32)

    /// `exit status N` or `signal N`.
    public var description: String {
        switch self {
        case .exit(let status): "exit status \(status)"
        case .signal(let number): "signal \(number)"
        }
    }
}

/// A fresh directory under the system temporary directory, removed by ``remove()``.
public final class TemporaryDirectory: Sendable {
    /// Where it is.
    public let url: URL
    /// Where it is, as a path.
    public var path: String { url.path }

    /// Creates `TMP/LABEL-UUID`.
    public init(_ label: String = "hearth-e2e") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Removes the directory and everything in it.
    public func remove() { try? FileManager.default.removeItem(at: url) }

    /// The names of the files in the directory.
    public func contents() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }
}

/// Child processes still running, killed when the test process exits so a failed run leaves no server behind.
private let liveProcesses = Mutex<Set<Int32>>([])
private let installExitHook: Void = {
    atexit {
        for pid in liveProcesses.withLock({ $0 }) { kill(pid, SIGKILL) }
    }
}()

/// A `hearth` child process with stdout and stderr captured to files; killed when it goes away or the test process
/// exits.
public final class ChildProcess: @unchecked Sendable {
    /// The process.
    public let process: Process
    /// Where its standard output goes.
    public let stdoutURL: URL
    /// Where its standard error goes.
    public let stderrURL: URL
    private let logs: TemporaryDirectory

    /// Starts `hearth` with `arguments`; the test process's own `HEARTH_*` variables are not passed on, `overrides`
    /// are added.
    public init(arguments: [String], environment overrides: [String: String]) throws {
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
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        environment.merge(overrides) { $1 }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // The child has its own copies. A test process starts hundreds of servers and `Process` keeps these
        // handles for as long as it lives, so without this every server left two descriptors open.
        try? stdout.close()
        try? stderr.close()
        self.process = process
        let pid = process.processIdentifier
        liveProcesses.withLock { _ = $0.insert(pid) }
    }

    /// The process ID.
    public var pid: Int32 { process.processIdentifier }
    /// Standard output so far.
    public var stdout: String { (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "" }
    /// Standard error so far.
    public var stderr: String { (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? "" }

    /// The termination, once the process has ended.
    public var termination: Termination? {
        guard !process.isRunning else { return nil }
        liveProcesses.withLock { _ = $0.remove(process.processIdentifier) }
        return process.terminationReason == .exit
            ? .exit(process.terminationStatus) : .signal(process.terminationStatus)
    }

    /// Waits (bounded) for the process to end; past `timeout` it is killed and this throws.
    public func waitForExit(timeout: Duration = .seconds(20)) async throws -> Termination {
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

    /// Sends a signal while the process runs.
    public func signal(_ number: Int32) { if process.isRunning { kill(pid, number) } }

    /// Removes the captured output files.
    public func removeLogs() { logs.remove() }

    deinit {
        let pid = process.processIdentifier
        if process.isRunning { kill(pid, SIGKILL) }
        liveProcesses.withLock { _ = $0.remove(pid) }
        logs.remove()
    }
}

/// Runs `hearth` with `arguments` to completion: the command-line contract outside `serve`.
public func runHearth(
    _ arguments: [String], environment: [String: String] = [:]
) async throws -> (termination: Termination, stdout: String, stderr: String) {
    let child = try ChildProcess(arguments: arguments, environment: environment)
    let termination = try await child.waitForExit()
    return (termination, child.stdout, child.stderr)
}
