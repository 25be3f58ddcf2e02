import Foundation

/// What to measure and how hard, from the command line.
struct BenchOptions: Sendable {
    var hearthPath = ".build/release/hearth"
    var wrkPath: String?
    var duration = 10
    var connections = 32
    var commitConnections = 4
    var wrkThreads = 2
    var serverThreads = max(2, ProcessInfo.processInfo.activeProcessorCount)
    var seedDocuments = 10_000
    var outputPath: String? = "Benchmarks/out/latest.md"
    var baselinesOnly = false
    var checkTargets = false
    /// Collection sizes for the query figures; empty skips them.
    var querySizes = [10_000, 100_000, 1_000_000]
    /// Tree figures: leaves seeded, streaming listeners and their write rate; 0 leaves skips them.
    var treeLeaves = 1_000_000
    var treeListeners = 1_000
    var treeWritesPerSecond = 1_000
    /// Whether to measure the write path with and without security rules.
    var measureRules = true
    /// Measure only the security-rules figure (no baselines, no other Hearth figures).
    var rulesOnly = false
    /// `--store postgres`: the PostgreSQL engine's figures beside SQLite's instead of the usual run.
    var comparePostgres = false
    /// Listeners on one node in the `--store postgres` listener figure (three nodes get 2.5 times as many); 0 skips it.
    var storeListeners = 4_000
    /// Writes/s in the `--store postgres` listener figure.
    var storeWriteRate = 1_000

    /// A usage mistake, reported with the usage hint.
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    /// The options in `arguments`, or `nil` when help was asked for.
    static func parse(_ arguments: [String]) throws(UsageError) -> BenchOptions? {
        var options = BenchOptions()
        var remaining = arguments[...]
        func value(_ flag: String) throws(UsageError) -> String {
            guard let next = remaining.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return next
        }
        func number(_ flag: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
            let text = try value(flag)
            guard let number = Int(text), range.contains(number) else {
                throw UsageError(
                    description: "\(flag) must be a whole number in \(range.lowerBound)…\(range.upperBound)")
            }
            return number
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help": return nil
            case "--hearth": options.hearthPath = try value(argument)
            case "--wrk": options.wrkPath = try value(argument)
            case "--duration": options.duration = try number(argument, 1...120)
            case "--connections": options.connections = try number(argument, 1...1024)
            case "--commit-connections": options.commitConnections = try number(argument, 1...256)
            case "--wrk-threads": options.wrkThreads = try number(argument, 1...64)
            case "--server-threads": options.serverThreads = try number(argument, 1...256)
            case "--seed-documents": options.seedDocuments = try number(argument, 1...1_000_000)
            case "--out": options.outputPath = try value(argument)
            case "--baselines-only": options.baselinesOnly = true
            case "--check-targets": options.checkTargets = true
            case "--query-sizes":
                let text = try value(argument)
                let sizes = text.split(separator: ",").compactMap { Int($0) }
                guard sizes.count == text.split(separator: ",").count,
                    sizes.allSatisfy({ (1...5_000_000).contains($0) })
                else { throw UsageError(description: "--query-sizes takes sizes like 10000,100000,1000000") }
                options.querySizes = sizes
            case "--skip-queries": options.querySizes = []
            case "--tree-leaves": options.treeLeaves = try number(argument, 0...5_000_000)
            case "--tree-listeners": options.treeListeners = try number(argument, 0...10_000)
            case "--tree-writes": options.treeWritesPerSecond = try number(argument, 1...100_000)
            case "--skip-tree": options.treeLeaves = 0
            case "--skip-rules": options.measureRules = false
            case "--rules-only": options.rulesOnly = true
            case "--store":
                switch try value(argument) {
                case "postgres": options.comparePostgres = true
                case "sqlite": options.comparePostgres = false
                default: throw UsageError(description: "--store takes sqlite or postgres")
                }
            case "--store-listeners": options.storeListeners = try number(argument, 0...20_000)
            case "--store-rate": options.storeWriteRate = try number(argument, 3...100_000)
            default: throw UsageError(description: "unknown argument \(argument)")
            }
        }
        guard options.wrkThreads <= options.connections, options.wrkThreads <= options.commitConnections else {
            throw UsageError(description: "wrk needs at least one connection per thread (--wrk-threads)")
        }
        return options
    }
}
