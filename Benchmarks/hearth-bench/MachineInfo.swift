import Foundation

/// A description of the machine the figures were measured on.
struct MachineInfo: Sendable {
    var processors: Int
    var cpuModel: String
    var memoryBytes: Int?
    var operatingSystem: String
    var kernel: String
    /// The 1-, 5- and 15-minute load averages when the run started: other work on the machine skews the figures.
    var loadAverage: String?

    /// Reads /proc and /etc/os-release where they exist (Linux); falls back to what Foundation knows.
    static func current() -> MachineInfo {
        let info = ProcessInfo.processInfo
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let memoryKiB = procFieldKiB(path: "/proc/meminfo", field: "MemTotal")
        let release = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
        let prettyName = release.split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
            .map { $0.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        let kernel = (try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return MachineInfo(
            processors: info.activeProcessorCount,
            cpuModel: model ?? "unknown CPU",
            memoryBytes: memoryKiB.map { $0 * 1024 } ?? Int(exactly: info.physicalMemory),
            operatingSystem: prettyName ?? info.operatingSystemVersionString,
            kernel: kernel ?? "",
            loadAverage: (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
                .split(separator: " ").prefix(3).joined(separator: " "))
    }

    /// A `Field:   1234 kB` value from a /proc/PID/status file, in KiB.
    static func procStatusKiB(pid: Int32, field: String) -> Int? {
        procFieldKiB(path: "/proc/\(pid)/status", field: field)
    }

    private static func procFieldKiB(path: String, field: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return line.split(separator: " ").dropFirst().compactMap { Int($0) }.first
        }
        return nil
    }
}
