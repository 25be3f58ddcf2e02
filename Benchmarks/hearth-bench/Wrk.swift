import Foundation

/// One wrk load: `wrk -tT -cC -dDs --timeout … --latency -s SCRIPT URL`.
struct WrkLoad: Sendable {
    /// A label for the report.
    var name: String
    /// The full URL; only 127.0.0.1 is ever targeted.
    var url: String
    /// The Lua script that shapes the requests.
    var script: String
    var threads: Int
    var connections: Int
    /// Seconds of load.
    var duration: Int
}

/// What wrk reported for one load.
struct WrkResult: Sendable {
    var load: WrkLoad
    /// `Requests/sec:` — completed responses of any status per second.
    var requestsPerSecond: Double
    /// Completed responses.
    var requests: Int
    /// `Non-2xx or 3xx responses:` (wrk counts statuses ≥ 400).
    var non2xx: Int
    /// `Socket errors: connect, read, write, timeout` summed.
    var socketErrors: Int
    /// Latency distribution, in milliseconds.
    var latencyAverage: Double?
    var latencyMax: Double?
    var latencyP50: Double?
    var latencyP90: Double?
    var latencyP99: Double?
    /// The raw output, for diagnosis.
    var output: String
}

/// Runs wrk as a child process and parses its summary.
struct WrkRunner: Sendable {
    /// The wrk executable.
    let executable: String
    /// Where scripts and output files go.
    let workDirectory: URL

    /// Finds wrk: the explicit path, or the first `wrk` on `PATH`.
    init(path: String?, workDirectory: URL) throws(BenchError) {
        if let path {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw BenchError("wrk not found at \(path)")
            }
            executable = path
        } else {
            guard let found = ChildProcess.findExecutable("wrk") else {
                throw BenchError("wrk is not installed (Debian: apt-get install wrk; macOS: brew install wrk)")
            }
            executable = found
        }
        self.workDirectory = workDirectory
    }

    /// The first line of `wrk --version`, e.g. `wrk 4.1.0 [epoll]`.
    func version() -> String {
        let output =
            (try? ChildProcess.capture(executable, ["--version"], timeout: .seconds(5), requireSuccess: false)) ?? ""
        // "wrk debian/4.1.0-3+b2 [epoll] Copyright (C) 2012 Will Glozer" → "wrk debian/4.1.0-3+b2 [epoll]"
        let first = output.split(separator: "\n").first.map(String.init) ?? "wrk"
        return first.components(separatedBy: " Copyright").first?.trimmingCharacters(in: .whitespaces) ?? "wrk"
    }

    /// Runs `load` and returns its figures; throws when wrk fails, hangs, or saw any error response or socket error.
    func run(_ load: WrkLoad) throws -> WrkResult {
        let scriptURL = workDirectory.appendingPathComponent("\(load.name.filter(\.isLetter)).lua")
        try Data(load.script.utf8).write(to: scriptURL)
        log("wrk \(load.name): -t\(load.threads) -c\(load.connections) -d\(load.duration)s \(load.url)")
        let arguments = [
            "-t\(load.threads)", "-c\(load.connections)", "-d\(load.duration)s", "--timeout", "10s", "--latency",
            "-s", scriptURL.path, load.url,
        ]
        let output = try ChildProcess.capture(executable, arguments, timeout: .seconds(load.duration + 30))
        let result = try Self.parse(output, load: load)
        guard result.non2xx == 0 else {
            throw BenchError("\(load.name): \(result.non2xx) error responses (status ≥ 400)\n\(output)")
        }
        guard result.socketErrors == 0 else {
            throw BenchError("\(load.name): socket errors\n\(output)")
        }
        guard result.requests > 0 else { throw BenchError("\(load.name): no request completed\n\(output)") }
        return result
    }

    /// Reads wrk's text summary.
    static func parse(_ output: String, load: WrkLoad) throws(BenchError) -> WrkResult {
        var result = WrkResult(
            load: load, requestsPerSecond: 0, requests: 0, non2xx: 0, socketErrors: 0, output: output)
        var sawRate = false
        for rawLine in output.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let first = words.first else { continue }
            switch first {
            case "Requests/sec:":
                if words.count > 1, let rate = Double(words[1]) {
                    result.requestsPerSecond = rate
                    sawRate = true
                }
            case "Latency" where words.count >= 4:
                // "Latency   1.23ms  456.00us  20.01ms   90.12%": average, stdev, max, within one stdev.
                result.latencyAverage = milliseconds(words[1])
                result.latencyMax = milliseconds(words[3])
            case "50%" where words.count > 1: result.latencyP50 = milliseconds(words[1])
            case "90%" where words.count > 1: result.latencyP90 = milliseconds(words[1])
            case "99%" where words.count > 1: result.latencyP99 = milliseconds(words[1])
            case "Non-2xx":
                // "Non-2xx or 3xx responses: 12"
                result.non2xx = words.last.flatMap { Int($0) } ?? 0
            case "Socket":
                // "Socket errors: connect 0, read 0, write 0, timeout 0"
                result.socketErrors = words.compactMap { Int($0.trimmingCharacters(in: .punctuationCharacters)) }
                    .reduce(0, +)
            default:
                // "123456 requests in 10.00s, 12.34MB read"
                if words.count > 2, words[1] == "requests", words[2] == "in", let count = Int(first) {
                    result.requests = count
                }
            }
        }
        guard sawRate else { throw BenchError("\(load.name): wrk printed no Requests/sec line:\n\(output)") }
        return result
    }

    /// `1.23ms`, `456.00us`, `2.01s`, `1.50m` → milliseconds.
    static func milliseconds(_ text: String) -> Double? {
        let units: [(suffix: String, factor: Double)] = [("us", 0.001), ("ms", 1), ("s", 1000), ("m", 60_000)]
        for unit in units where text.hasSuffix(unit.suffix) {
            guard let number = Double(text.dropLast(unit.suffix.count)) else { return nil }
            return number * unit.factor
        }
        return nil
    }
}
