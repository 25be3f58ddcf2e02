import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Child processes with a deadline: output goes to a temporary file (never a pipe that could fill up and stall the
/// child), and a child still running at its deadline is killed.
enum ChildProcess {
    /// Runs `executable` with `arguments` to completion and returns standard output and standard error together.
    /// Throws when it cannot start, outlives `timeout`, or (when `requireSuccess`) exits with a non-zero status.
    static func capture(
        _ executable: String, _ arguments: [String], timeout: Duration, requireSuccess: Bool = true
    ) throws -> String {
        let outputURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("hearth-bench-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let output = try FileHandle(forWritingTo: outputURL)
        defer { try? output.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let finished = wait(for: process, timeout: timeout)
        let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        guard finished else {
            throw BenchError("\(executable) still running after \(timeout); killed it\n\(text)")
        }
        guard !requireSuccess || (process.terminationReason == .exit && process.terminationStatus == 0) else {
            throw BenchError(
                "\(executable) \(arguments.joined(separator: " ")) failed (status "
                    + "\(process.terminationStatus))\n\(text)")
        }
        return text
    }

    /// The first executable called `name` in a directory of `PATH`.
    static func findExecutable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first(where: FileManager.default.isExecutableFile)
    }

    /// Waits up to `timeout` for `process` to exit; past that sends SIGKILL, reaps it and returns `false`.
    static func wait(for process: Process, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return false
            }
            usleep(20_000)
        }
        process.waitUntilExit()
        return true
    }
}
