import Foundation

/// `hearth-bench listen` options.
struct ListenBenchOptions: Sendable {
    var hearthPath = ".build/release/hearth"
    var listeners = 10_000
    var writeRate = 1000
    var queryListeners = 1000
    var grpcListeners = 1000
    var queryWriteRate = 2000
    var boardDocuments = 10_000
    var duration = 10
    var fanOutRounds = 5
    var serverThreads = max(2, ProcessInfo.processInfo.activeProcessorCount)
    var clientThreads = 2
    var matchingQueries = [1, 10, 100, 1000, 10_000]
    var scenarios: Set<String> = ["documents", "query", "grpc", "baseline", "matching"]
    var outputPath: String? = "Benchmarks/out/listen.md"
    var checkTargets = false

    /// A usage mistake, reported with the usage hint.
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static let usage = """
        USAGE: hearth-bench listen [options]

        Live-listener figures (docs/realtime.md): the release `hearth` server with thousands of SSE listen streams
        held by a compiled, multi-threaded epoll client in this process, against a baseline that pushes
        pre-serialised bytes to the same number of SSE connections from a bare HearthHTTP server (a child process).
        Also measures, in process, how the cost of matching a write grows with the number of listening queries.

        OPTIONS:
          --hearth PATH            the hearth binary                              (default .build/release/hearth)
          --listeners N            streams, each on its own document              (default 10000)
          --rate N                 writes/s to random documents                   (default 1000)
          --query-listeners N      streams on one query (where+orderBy+limit 50)  (default 1000)
          --query-rate N           writes/s to the queried collection             (default 2000)
          --board-documents N      documents in the queried collection            (default 10000)
          --grpc-listeners N       gRPC Listen streams and as many SSE streams, one server, --rate writes/s
                                   shared between them                            (default 1000)
          --duration SECONDS       length of each load                            (default 10)
          --fan-out-rounds N       writes to the document with every listener     (default 5)
          --server-threads N       HTTP threads of hearth and of the baseline     (default: CPU count, at least 2)
          --client-threads N       epoll threads of the load client               (default 2)
          --matching-queries LIST  query counts for the matching cost             (default 1,10,100,1000,10000)
          --only LIST              some of documents,query,grpc,baseline,matching (default all)
          --out PATH               also write the report here                     (default Benchmarks/out/listen.md)
          --check-targets          exit with status 3 when a target is missed
          -h, --help               show this help
        """

    static func parse(_ arguments: [String]) throws(ListenBenchOptions.UsageError) -> ListenBenchOptions? {
        var options = ListenBenchOptions()
        var remaining = arguments[...]
        func value(_ flag: String) throws(ListenBenchOptions.UsageError) -> String {
            guard let next = remaining.popFirst() else {
                throw ListenBenchOptions.UsageError(description: "\(flag) needs a value")
            }
            return next
        }
        func number(_ flag: String, _ range: ClosedRange<Int>) throws(ListenBenchOptions.UsageError) -> Int {
            let text = try value(flag)
            guard let number = Int(text), range.contains(number) else {
                throw ListenBenchOptions.UsageError(
                    description: "\(flag) must be a whole number in \(range.lowerBound)…\(range.upperBound)")
            }
            return number
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help": return nil
            case "--hearth": options.hearthPath = try value(argument)
            case "--listeners": options.listeners = try number(argument, 1...60_000)
            case "--rate": options.writeRate = try number(argument, 1...100_000)
            case "--query-listeners": options.queryListeners = try number(argument, 1...60_000)
            case "--query-rate": options.queryWriteRate = try number(argument, 1...100_000)
            case "--board-documents": options.boardDocuments = try number(argument, 100...1_000_000)
            case "--grpc-listeners": options.grpcListeners = try number(argument, 1...20_000)
            case "--duration": options.duration = try number(argument, 1...300)
            case "--fan-out-rounds": options.fanOutRounds = try number(argument, 1...100)
            case "--server-threads": options.serverThreads = try number(argument, 1...256)
            case "--client-threads": options.clientThreads = try number(argument, 1...64)
            case "--matching-queries":
                let text = try value(argument)
                let counts = text.split(separator: ",").compactMap { Int($0) }
                guard !counts.isEmpty, counts.count == text.split(separator: ",").count,
                    counts.allSatisfy({ (1...100_000).contains($0) })
                else {
                    throw ListenBenchOptions.UsageError(description: "--matching-queries takes counts like 1,10,100")
                }
                options.matchingQueries = counts
            case "--only":
                let names = Set(try value(argument).split(separator: ",").map(String.init))
                guard !names.isEmpty, names.isSubset(of: ["documents", "query", "grpc", "baseline", "matching"]) else {
                    throw ListenBenchOptions.UsageError(
                        description: "--only takes some of documents,query,grpc,baseline,matching")
                }
                options.scenarios = names
            case "--out": options.outputPath = try value(argument)
            case "--check-targets": options.checkTargets = true
            default: throw ListenBenchOptions.UsageError(description: "unknown argument \(argument)")
            }
        }
        return options
    }
}
