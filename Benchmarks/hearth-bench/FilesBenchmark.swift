import Dispatch
import Foundation
import Hearth
import Synchronization

/// The figures of `hearth-bench files`: one file through the SDK's Storage against the release server, and `cp` of
/// it on the same disk.
struct FilesBenchmark {
    let options: FilesBenchCommand.Options

    func run() throws -> String {
        let machine = MachineInfo.current()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-files-bench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let source = work.appendingPathComponent("source.bin")
        let size = options.sizeMiB << 20
        log("writing \(options.sizeMiB) MiB of random bytes")
        try Self.randomFile(at: source, size: size)

        let server = try HearthServerProcess(
            binary: options.hearth, dataDirectory: work.appendingPathComponent("data"), logDirectory: work,
            threads: max(2, ProcessInfo.processInfo.activeProcessorCount))
        defer { _ = try? server.stop() }
        guard let url = URL(string: server.baseURL) else { throw BenchError("bad server URL \(server.baseURL)") }
        HearthApp.configure(
            name: "files-bench",
            options: HearthOptions(
                serverURL: url, projectID: "demo", apiKey: "bench", storageDirectory: work.appendingPathComponent("sdk")
            ))
        guard let app = HearthApp.app(name: "files-bench") else { throw BenchError("no SDK app") }
        let storage = Storage.storage(app: app)
        if let chunk = options.chunkMiB { storage.uploadChunkSizeBytes = Int64(chunk) << 20 }
        let reference = storage.reference().child("bench/file.bin")
        let expected = try Data(contentsOf: source)

        var copy: [Duration] = []
        var copySync: [Duration] = []
        var upload: [Duration] = []
        var toFile: [Duration] = []
        var toMemory: [Duration] = []
        for round in 1...options.rounds {
            log("round \(round) of \(options.rounds)")
            let copied = work.appendingPathComponent("copy-\(round).bin")
            copy.append(try Self.time { try Self.shell("cp '\(source.path)' '\(copied.path)'") })
            try? FileManager.default.removeItem(at: copied)
            copySync.append(
                try Self.time { try Self.shell("cp '\(source.path)' '\(copied.path)' && sync '\(copied.path)'") })
            try? FileManager.default.removeItem(at: copied)

            upload.append(try Self.time { _ = try blocking { try await reference.putFileAsync(from: source) } })
            let downloaded = work.appendingPathComponent("download-\(round).bin")
            toFile.append(try Self.time { _ = try blocking { try await reference.writeAsync(toFile: downloaded) } })
            guard try Data(contentsOf: downloaded) == expected else { throw BenchError("the downloaded file differs") }
            try? FileManager.default.removeItem(at: downloaded)
            var bytes = Data()
            toMemory.append(try Self.time { bytes = try blocking { try await reference.data(maxSize: Int64(size)) } })
            guard bytes == expected else { throw BenchError("the downloaded bytes differ") }
        }
        let small = try SmallFileUploads(
            storage: storage, count: options.smallFiles, parallel: options.smallParallel
        ).measure(blocking: blocking)
        let memory = try measureMemory(work: work, reusing: source)
        return report(
            machine: machine, copy: copy, copySync: copySync, upload: upload, toFile: toFile, toMemory: toMemory,
            chunk: storage.uploadChunkSizeBytes) + small.markdown + (memory?.markdown ?? "")
    }

    /// The resident-set figure, on a server of its own, with a file of `--rss-mib` (the timing file when sizes match).
    private func measureMemory(work: URL, reusing timed: URL) throws -> LargeUploadMemory.Figures? {
        guard options.rssMiB > 0 else { return nil }
        var source = timed
        if options.rssMiB != options.sizeMiB {
            try? FileManager.default.removeItem(at: timed)
            source = work.appendingPathComponent("large.bin")
            log("writing \(options.rssMiB) MiB of random bytes for the memory figure")
            try Self.randomFile(at: source, size: options.rssMiB << 20)
        }
        let measure = LargeUploadMemory(options: options) { body in _ = try blocking(body) }
        return try measure.measure(work: work, source: source) { url in
            HearthApp.configure(
                name: "files-bench-memory",
                options: HearthOptions(
                    serverURL: url, projectID: "demo", apiKey: "bench",
                    storageDirectory: work.appendingPathComponent("sdk-memory")))
            guard let app = HearthApp.app(name: "files-bench-memory") else { throw BenchError("no SDK app") }
            let storage = Storage.storage(app: app)
            if let chunk = options.chunkMiB { storage.uploadChunkSizeBytes = Int64(chunk) << 20 }
            return storage
        }
    }

    private func report(
        machine: MachineInfo, copy: [Duration], copySync: [Duration], upload: [Duration], toFile: [Duration],
        toMemory: [Duration], chunk: Int64
    ) -> String {
        let mib = Double(options.sizeMiB)
        func seconds(_ values: [Duration]) -> [Double] {
            values.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }.sorted()
        }
        func median(_ values: [Duration]) -> Double { seconds(values)[values.count / 2] }
        func row(_ name: String, _ values: [Duration], _ baseline: Double? = nil) -> String {
            let all = seconds(values)
            let middle = median(values)
            let ratio = baseline.map { String(format: "%.1f×", middle / $0) } ?? "–"
            return String(
                format: "| %@ | %.3f s | %.3f–%.3f s | %.0f MiB/s | %@ |\n", name, middle, all.first ?? 0,
                all.last ?? 0,
                mib / middle, ratio)
        }
        let base = median(copySync)
        var out = "# Hearth file storage — benchmark\n\n"
        out += "Measured \(ISO8601DateFormatter().string(from: Date())) on \(machine.processors) CPU(s), "
        out += "\(machine.cpuModel), \(machine.operatingSystem); load average at start \(machine.loadAverage ?? "?"). "
        out +=
            "One \(options.sizeMiB) MiB file of random bytes, medians of \(options.rounds) rounds; the server (release "
        out += "`hearth serve --dev`), the SDK and `cp` share the machine and the disk (the temporary directory). "
        out += "Uploads go as resumable chunks of \(chunk >> 20) MiB"
        out += options.chunkMiB == nil ? " (the SDK's default)" : ""
        out += "; the server fsyncs every chunk (so the session's offset survives a crash) and reads the finished "
        out += "file back for its checksums before the metadata commits.\n\n"
        let chunkFlag = options.chunkMiB.map { " --chunk-mib \($0)" } ?? ""
        out += "Command: `hearth-bench files --files-mib \(options.sizeMiB) --rounds \(options.rounds)\(chunkFlag) "
        out += "--small-files \(options.smallFiles) --small-parallel \(options.smallParallel)`\n\n"
        out += "| figure | median | min–max | throughput | of `cp` + `sync` |\n| --- | ---: | ---: | ---: | ---: |\n"
        out += row("`cp` (page cache, no fsync)", copy)
        out += row("`cp` + `sync` of the copy (baseline)", copySync)
        out += row("SDK `putFile` (upload)", upload, base)
        out += row("SDK `write(toFile:)` (download to a file)", toFile, base)
        out += row("SDK `data(maxSize:)` (download into memory)", toMemory, base)
        return out
    }

    /// Runs `body` on Swift's pool and waits for it on this thread (the benchmark's thread is not the pool's).
    func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let result = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }

    private static func time(_ body: () throws -> Void) throws -> Duration {
        let start = ContinuousClock.now
        try body()
        return ContinuousClock.now - start
    }

    private static func shell(_ command: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("`\(command)` failed") }
    }

    private static func randomFile(at url: URL, size: Int) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw BenchError("cannot create \(url.path)")
        }
        let out = try FileHandle(forWritingTo: url)
        defer { try? out.close() }
        var generator = SystemRandomNumberGenerator()
        var left = size
        while left > 0 {
            let count = min(left, 1 << 20)
            var block = [UInt8](repeating: 0, count: count)
            for index in stride(from: 0, to: count, by: 8) {
                withUnsafeBytes(of: generator.next() as UInt64) { word in
                    for offset in 0..<min(8, count - index) { block[index + offset] = word[offset] }
                }
            }
            try out.write(contentsOf: block)
            left -= count
        }
    }
}
