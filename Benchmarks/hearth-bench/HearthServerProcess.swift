import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real `hearth serve` as a child process on 127.0.0.1 with a free port and its own data directory.
final class HearthServerProcess {
    private let process: Process
    private let stdoutURL: URL
    private let stderrURL: URL
    private var logHandles: [FileHandle]
    /// `http://127.0.0.1:PORT`, read from the server's `listening on` line.
    let baseURL: String

    /// Starts `hearth serve --host 127.0.0.1 --port 0 --data DIR --dev --threads N` (then `extraArguments`) and waits
    /// (at most 30 s) for its `listening on http://HOST:PORT` line.
    init(binary: String, dataDirectory: URL, logDirectory: URL, threads: Int, extraArguments: [String] = []) throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("no hearth binary at \(binary) (build it: swift build -c release --product hearth)")
        }
        stdoutURL = logDirectory.appendingPathComponent("hearth.stdout")
        stderrURL = logDirectory.appendingPathComponent("hearth.stderr")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let stdout = try FileHandle(forWritingTo: stdoutURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        logHandles = [stdout, stderr]

        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments =
            [
                "serve", "--host", "127.0.0.1", "--port", "0", "--data", dataDirectory.path, "--dev",
                "--threads", String(threads),
            ] + extraArguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = stderr
        log("starting \(binary) \(process.arguments?.joined(separator: " ") ?? "")")
        try process.run()

        var found: String?
        let deadline = ContinuousClock.now + .seconds(30)
        while found == nil, ContinuousClock.now < deadline, process.isRunning {
            found = Self.listeningURL(in: (try? String(contentsOf: stdoutURL, encoding: .utf8)) ?? "")
            if found == nil { usleep(50_000) }
        }
        guard let found else {
            let status = process.isRunning ? "still running" : "exited with status \(process.terminationStatus)"
            if process.isRunning { _ = ChildProcess.wait(for: process, timeout: .zero) }
            throw BenchError(
                "hearth printed no 'listening on http://HOST:PORT' line within 30 s (\(status))\n"
                    + Self.tail(stdoutURL) + Self.tail(stderrURL))
        }
        baseURL = found
        log("hearth is listening on \(found) (pid \(process.processIdentifier))")
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The server's peak resident set size in bytes (`VmHWM` in /proc/PID/status); `nil` where there is no /proc.
    func peakResidentBytes() -> Int? {
        guard process.isRunning else { return nil }
        return MachineInfo.procStatusKiB(pid: process.processIdentifier, field: "VmHWM").map { $0 * 1024 }
    }

    /// The server's resident set size now, in bytes (`VmRSS` in /proc/PID/status); `nil` where there is no /proc.
    func residentBytes() -> Int? {
        guard process.isRunning else { return nil }
        return MachineInfo.procStatusKiB(pid: process.processIdentifier, field: "VmRSS").map { $0 * 1024 }
    }

    /// Sends SIGTERM and waits up to 20 s; returns the exit status. Throws when the server had to be killed.
    func stop() throws -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        log("stopping hearth (SIGTERM)")
        process.terminate()
        guard ChildProcess.wait(for: process, timeout: .seconds(20)) else {
            throw BenchError("hearth did not exit within 20 s of SIGTERM; killed it\n" + Self.tail(stderrURL))
        }
        for handle in logHandles { try? handle.close() }
        logHandles = []
        return process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus
    }

    /// The last lines the server wrote to standard error, for error messages.
    func recentErrors() -> String {
        Self.tail(stderrURL)
    }

    /// `http://HOST:PORT` from the first `listening on http://HOST:PORT` in `text`.
    static func listeningURL(in text: String) -> String? {
        guard let range = text.range(of: "listening on http://") else { return nil }
        let rest = text[range.upperBound...]
        let hostPort = rest.prefix { $0.isNumber || $0 == "." || $0 == ":" }
        guard hostPort.contains(":"), rest.dropFirst(hostPort.count).first?.isWhitespace ?? false else { return nil }
        return "http://" + hostPort
    }

    private static func tail(_ url: URL, lines: Int = 20) -> String {
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        let last = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines)
        return last.isEmpty ? "" : "--- \(url.lastPathComponent) ---\n" + last.joined(separator: "\n") + "\n"
    }
}
