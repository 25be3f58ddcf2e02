import Foundation

/// `hearth-bench listen …` (and the baseline child's `hearth-bench listen-baseline-server`).
enum ListenBenchCommand {
    /// Whether `arguments` are this command's.
    static func handles(_ arguments: [String]) -> Bool {
        arguments.first == "listen" || arguments.first == "listen-baseline-server"
    }

    static func run(_ arguments: [String]) -> Int32 {
        #if os(Linux)
        if arguments.first == "listen-baseline-server" {
            let threads = arguments.count >= 3 ? Int(arguments[2]) ?? 2 : 2
            return ListenBaselineChild.run(threads: threads)
        }
        let options: ListenBenchOptions
        do {
            guard let parsed = try ListenBenchOptions.parse(Array(arguments.dropFirst())) else {
                print(ListenBenchOptions.usage)
                return 0
            }
            options = parsed
        } catch {
            FileHandle.standardError.write(
                Data("hearth-bench listen: \(error)\nRun 'hearth-bench listen --help'.\n".utf8))
            return 64
        }
        let files = ListenBenchSocket.raiseFileLimit()
        let needed = max(options.listeners, options.queryListeners) + 200
        guard files >= needed else {
            FileHandle.standardError.write(
                Data("hearth-bench listen: \(needed) open files needed, the limit is \(files)\n".utf8))
            return 1
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-listen-bench-\(UUID().uuidString.prefix(8))")
        var report = ListenBenchReport(machine: .current(), options: options)
        do {
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let scenarios = ListenScenarios(options: options, workDirectory: work)
            if options.scenarios.contains("documents") { try scenarios.ownDocuments(into: &report) }
            if options.scenarios.contains("query") { try scenarios.sharedQuery(into: &report) }
            if options.scenarios.contains("grpc") { try scenarios.grpcBesideSSE(into: &report) }
            if options.scenarios.contains("baseline") {
                try scenarios.baseline(into: &report)
                try scenarios.queryBaseline(into: &report)
            }
            if options.scenarios.contains("matching") {
                log("matching cost for \(options.matchingQueries.map(String.init).joined(separator: ", ")) queries")
                report.matching = try ListenMatchingBenchmark.run(queryCounts: options.matchingQueries)
                log("hub cost of one write to 1,000 and \(options.listeners) listeners, in process")
                report.hubFanOut = try [1000, options.listeners].map {
                    try ListenFanOutBenchmark.run(listeners: $0, rounds: 9)
                }
            }
        } catch {
            FileHandle.standardError.write(Data("hearth-bench listen: FAILED: \(error)\n".utf8))
            return 1
        }
        let markdown = report.markdown()
        guard ReportFormat.publish(markdown, to: options.outputPath, command: "hearth-bench listen") else { return 1 }
        return options.checkTargets && report.missedTargets > 0 ? 3 : 0
        #else
        FileHandle.standardError.write(Data("hearth-bench listen runs on Linux only.\n".utf8))
        return 1
        #endif
    }
}
