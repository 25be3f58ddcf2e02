#if os(Linux)
import Foundation
import Glibc

/// `hearth serve` as a child process for the listener benchmark (its own data directory, extra arguments).
final class ListenServerProcess {
    private let process = Process()
    private let output: URL
    let port: Int

    init(binary: String, directory: URL, threads: Int, extraArguments: [String] = []) throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("no hearth binary at \(binary) (build it: swift build -c release --product hearth)")
        }
        let data = directory.appendingPathComponent("data-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        output = directory.appendingPathComponent("hearth-\(UUID().uuidString.prefix(6)).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments =
            [
                "serve", "--host", "127.0.0.1", "--port", "0", "--data", data.path, "--dev", "--threads",
                String(threads), "--log-level", "warning",
                // Every listener comes from 127.0.0.1: the default per-address limit (256) would close the rest.
                "--max-connections-per-address", "0",
            ]
            + extraArguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        var found: Int?
        let deadline = Date().addingTimeInterval(30)
        while found == nil, Date() < deadline, process.isRunning {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                found = Int(text[range.upperBound...].prefix { $0.isNumber })
            }
            if found == nil { usleep(20_000) }
        }
        guard let found else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            throw BenchError("hearth did not start: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
        }
        port = found
    }

    var pid: Int32 { process.processIdentifier }

    /// Resident and peak resident set size in bytes.
    func memory() -> (resident: Int, peak: Int) {
        (
            (MachineInfo.procStatusKiB(pid: pid, field: "VmRSS") ?? 0) * 1024,
            (MachineInfo.procStatusKiB(pid: pid, field: "VmHWM") ?? 0) * 1024
        )
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    deinit { stop() }
}
#endif
