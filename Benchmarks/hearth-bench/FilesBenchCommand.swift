import Foundation

/// `hearth-bench files …`: the SDK's Storage uploading and downloading one large file through the release server,
/// beside `cp` of the same file on the same disk, and many small (4 KiB) uploads a second.
enum FilesBenchCommand {
    static let usage = """
        USAGE: hearth-bench files [options]

        Starts the release `hearth` server on 127.0.0.1 with a fresh data directory and, through the Swift SDK's
        Storage, uploads one file of random bytes (putFile: resumable chunks of the SDK's default size) and downloads
        it (write(toFile:) and data(maxSize:)), each several times; beside it, `cp` of the same file on the same disk,
        alone and followed by `sync` of the copy (the server fsyncs every upload). Medians are reported. Then small
        files: 4 KiB uploads (putData, one request each) one at a time and several at once, as uploads a second. Last,
        on a server of its own, the server's resident set (VmRSS/VmHWM) before and after a large upload, through the
        SDK and as one streamed media request.

        OPTIONS:
          --hearth PATH     the hearth binary                 (default .build/release/hearth)
          --files-mib N     the large file's size in MiB, 1…4096 (default 64; `make bench` passes 256)
          --size-mib N      the same as --files-mib
          --rounds N        measurements of each figure, 1…50 (default 5)
          --small-files N   4 KiB uploads per small-file figure, 0…100000 (default 1000; 0 skips them)
          --small-parallel N  uploads under way at once in the parallel figure, 1…256 (default 8)
          --rss-mib N       the file whose upload the server's memory is watched over, 0…4096 MiB (default 1024; 0 skips)
          --chunk-mib N     the SDK's uploadChunkSizeBytes in MiB, 1…1024 (default: the SDK's own, 4)
          --out PATH        also write the report here        (default Benchmarks/out/files.md)
          -h, --help        show this help

        EXIT STATUS: 0 measured, 1 a transfer failed or the bytes differ, 64 usage error.
        """

    struct Options {
        var hearth = ".build/release/hearth"
        var sizeMiB = 64
        var rounds = 5
        var chunkMiB: Int?
        var smallFiles = 1000
        var smallParallel = 8
        var rssMiB = 1024
        var out: String? = "Benchmarks/out/files.md"
    }

    /// Whether `arguments` are this command's.
    static func handles(_ arguments: [String]) -> Bool { arguments.first == "files" }

    static func run(_ arguments: [String]) -> Int32 {
        var options = Options()
        var rest = Array(arguments.dropFirst())[...]
        while let flag = rest.popFirst() {
            func value() -> String? { rest.popFirst() }
            switch flag {
            case "-h", "--help":
                print(usage)
                return 0
            case "--hearth": if let path = value() { options.hearth = path } else { return usageError(flag) }
            case "--out": if let path = value() { options.out = path } else { return usageError(flag) }
            case "--size-mib", "--files-mib":
                guard let size = value().flatMap(Int.init), (1...4096).contains(size) else { return usageError(flag) }
                options.sizeMiB = size
            case "--chunk-mib":
                guard let chunk = value().flatMap(Int.init), (1...1024).contains(chunk) else { return usageError(flag) }
                options.chunkMiB = chunk
            case "--small-files":
                guard let count = value().flatMap(Int.init), (0...100_000).contains(count) else {
                    return usageError(flag)
                }
                options.smallFiles = count
            case "--small-parallel":
                guard let count = value().flatMap(Int.init), (1...256).contains(count) else { return usageError(flag) }
                options.smallParallel = count
            case "--rss-mib":
                guard let size = value().flatMap(Int.init), (0...4096).contains(size) else { return usageError(flag) }
                options.rssMiB = size
            case "--rounds":
                guard let rounds = value().flatMap(Int.init), (1...50).contains(rounds) else { return usageError(flag) }
                options.rounds = rounds
            default: return usageError(flag)
            }
        }
        let markdown: String
        do {
            markdown = try FilesBenchmark(options: options).run()
        } catch {
            FileHandle.standardError.write(Data("hearth-bench files: FAILED: \(error)\n".utf8))
            return 1
        }
        guard ReportFormat.publish(markdown, to: options.out, command: "hearth-bench files") else { return 1 }
        return 0
    }

    private static func usageError(_ flag: String) -> Int32 {
        FileHandle.standardError.write(
            Data("hearth-bench files: bad or incomplete option \(flag)\nRun 'hearth-bench files --help'.\n".utf8))
        return 64
    }
}
