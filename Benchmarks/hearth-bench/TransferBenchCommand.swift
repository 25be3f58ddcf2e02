import Foundation

/// `hearth-bench transfer …`: `hearth import` and `hearth export` of many documents, each beside raw SQLite
/// writing (or reading) the same rows in the same run.
enum TransferBenchCommand {
    static let usage = """
        USAGE: hearth-bench transfer [options]

        Writes an export of N documents (documents.jsonl, four fields each), times `hearth import` of it into a fresh
        data directory and `hearth export` of that directory (the release binary, as a user runs them; the export is
        checked to give back the same bytes). Beside them, raw SQLite through HearthSQLite: the rows Hearth stores per
        document (document, 3 index entries, change-log row) inserted 1,000 per transaction with the server's
        durability, and read back in path order into a file of one line each.

        OPTIONS:
          --hearth PATH     the hearth binary                 (default .build/release/hearth)
          --documents N     documents, 1000…10000000          (default 1000000)
          --out PATH        also write the report here        (default Benchmarks/out/transfer.md)
          -h, --help        show this help

        EXIT STATUS: 0 measured, 1 a step failed or the export differs, 64 usage error.
        """

    struct Options {
        var hearth = ".build/release/hearth"
        var documents = 1_000_000
        var out: String? = "Benchmarks/out/transfer.md"
    }

    /// Whether `arguments` are this command's.
    static func handles(_ arguments: [String]) -> Bool { arguments.first == "transfer" }

    static func run(_ arguments: [String]) -> Int32 {
        var options = Options()
        var rest = Array(arguments.dropFirst())[...]
        while let flag = rest.popFirst() {
            switch flag {
            case "-h", "--help":
                print(usage)
                return 0
            case "--hearth":
                guard let path = rest.popFirst() else { return usageError(flag) }
                options.hearth = path
            case "--out":
                guard let path = rest.popFirst() else { return usageError(flag) }
                options.out = path
            case "--documents":
                guard let count = rest.popFirst().flatMap(Int.init), (1000...10_000_000).contains(count) else {
                    return usageError(flag)
                }
                options.documents = count
            default: return usageError(flag)
            }
        }
        let markdown: String
        do {
            markdown = try TransferBenchmark(options: options).run()
        } catch {
            FileHandle.standardError.write(Data("hearth-bench transfer: FAILED: \(error)\n".utf8))
            return 1
        }
        guard ReportFormat.publish(markdown, to: options.out, command: "hearth-bench transfer") else { return 1 }
        return 0
    }

    private static func usageError(_ flag: String) -> Int32 {
        FileHandle.standardError.write(
            Data("hearth-bench transfer: bad or incomplete option \(flag)\nRun 'hearth-bench transfer --help'.\n".utf8))
        return 64
    }
}
