import Foundation
import HearthCore
import HearthSQLite

/// The figures of `hearth-bench transfer` (see ``TransferBenchCommand``).
struct TransferBenchmark {
    let options: TransferBenchCommand.Options

    /// `d0000001`: sortable IDs, so the export's path order is the order the input was written in.
    static func documentID(_ number: Int) -> String {
        let digits = String(number)
        return "d" + String(repeating: "0", count: max(0, 7 - digits.count)) + digits
    }

    func run() throws -> String {
        let machine = MachineInfo.current()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-transfer-\(UUID())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let count = options.documents
        let input = root.appendingPathComponent("input")
        log("writing an export of \(count) documents")
        let inputBytes = try writeExport(to: input, count: count)

        let data = root.appendingPathComponent("data").path
        log("hearth import of \(count) documents")
        let importSeconds = try timed {
            _ = try ChildProcess.capture(
                options.hearth, ["import", "--data", data, input.path], timeout: .seconds(3600))
        }
        let output = root.appendingPathComponent("output")
        log("hearth export of \(count) documents")
        let exportSeconds = try timed {
            _ = try ChildProcess.capture(
                options.hearth, ["export", "--data", data, output.path], timeout: .seconds(3600))
        }
        let same =
            FileManager.default.contentsEqual(
                atPath: input.appendingPathComponent("documents.jsonl").path,
                andPath: output.appendingPathComponent("documents.jsonl").path)
        guard same else { throw BenchError("the export's documents.jsonl differs from the imported one") }
        let databaseBytes = directorySize(data)

        let baseline = SQLiteBaseline(directory: root)
        let inserted = try baseline.measure(
            perTransaction: 1000, ids: .sequential, duration: .seconds(3600), limit: count)
        let readSeconds = try timed {
            try readBack(
                root.appendingPathComponent("baseline-1000.sqlite").path,
                into: root.appendingPathComponent("read.txt").path)
        }

        func rate(_ seconds: Double) -> String { ReportFormat.rate(Double(count) / seconds) }
        var out = "# hearth-bench transfer\n\n"
        out += "\(machine.processors) × \(machine.cpuModel), \(machine.operatingSystem); "
        out += "load average at start \(machine.loadAverage ?? "?"). "
        out += "\(count) documents of 4 fields; documents.jsonl \(inputBytes / 1_048_576) MiB, "
        out += "the imported data directory \(databaseBytes / 1_048_576) MiB.\n\n"
        out += "| figure | Hearth | baseline (raw SQLite, same rows) | Hearth / baseline |\n|---|---|---|---|\n"
        out +=
            "| import, documents/s (`hearth import`: parse, check, store with index entries) | \(rate(importSeconds)) "
        out += "(\(String(format: "%.1f", importSeconds)) s) | \(ReportFormat.rate(inserted.documentsPerSecond)) "
        out += "(inserts, 1,000 per transaction) | \(percent(inserted.seconds / importSeconds)) |\n"
        out += "| export, documents/s (`hearth export`: one snapshot, JSON lines) | \(rate(exportSeconds)) "
        out += "(\(String(format: "%.1f", exportSeconds)) s) | \(rate(readSeconds)) (a SELECT in path order to a file) "
        out += "| \(percent(readSeconds / exportSeconds)) |\n\n"
        out += "The export of the import gave back the input byte for byte.\n"
        return out
    }

    private func percent(_ fraction: Double) -> String { String(format: "%.0f%%", fraction * 100) }

    /// An export directory: the manifest and `documents.jsonl` with `count` documents in path order.
    private func writeExport(to directory: URL, count: Int) throws -> Int {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(#"{"format":"hearth-export","version":1}"#.utf8)
            .write(to: directory.appendingPathComponent("hearth-export.json"))
        let path = directory.appendingPathComponent("documents.jsonl").path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var buffer: [UInt8] = []
        var total = 0
        for number in 1...count {
            let time = "2026-01-01T00:00:00.\(String(format: "%06d", number % 1_000_000))Z"
            buffer +=
                Array(
                    #"{"name":"bench/\#(Self.documentID(number))","createTime":"\#(time)","updateTime":"\#(time)","fields":{"done":{"booleanValue":\#(number % 2 == 0)},"due":{"timestampValue":"\#(time)"},"n":{"integerValue":"\#(number)"},"title":{"stringValue":"todo number \#(number)"}}}"#
                        .utf8) + [UInt8(ascii: "\n")]
            if buffer.count > 1 << 20 {
                try handle.write(contentsOf: buffer)
                total += buffer.count
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: buffer)
        return total + buffer.count
    }

    /// Reads every document row of `database` in path order, writing one `path\tfields` line each to `file`.
    private func readBack(_ database: String, into file: String) throws {
        var options = SQLiteConnection.Options()
        options.readOnly = true
        options.create = false
        let db = try SQLiteConnection(path: database, options: options)
        defer { db.close() }
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        defer { try? handle.close() }
        var buffer: [UInt8] = []
        try db.forEachRow(
            "SELECT collection, id, fields, create_time, update_time FROM documents ORDER BY collection, id"
        ) { row in
            buffer += Array((row.value(at: 0).stringValue ?? "").utf8) + [UInt8(ascii: "/")]
            buffer += Array((row.value(at: 1).stringValue ?? "").utf8) + [UInt8(ascii: "\t")]
            if case .blob(let fields) = row.value(at: 2) { buffer += fields }
            buffer.append(UInt8(ascii: "\n"))
            if buffer.count > 1 << 20 {
                try handle.write(contentsOf: buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: buffer)
        try handle.synchronize()
    }

    private func timed(_ body: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        try body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private func directorySize(_ path: String) -> Int {
        let enumerator = FileManager.default.enumerator(atPath: path)
        var total = 0
        while let next = enumerator?.nextObject() as? String {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + next)
            total += (attributes?[.size] as? Int) ?? 0
        }
        return total
    }
}
