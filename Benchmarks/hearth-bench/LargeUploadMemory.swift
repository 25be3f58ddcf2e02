import Foundation
import Hearth

/// The memory figure of `hearth-bench files`: the server's resident set while one large file is uploaded, on a
/// server of its own (so its peak holds nothing but start-up, one small upload and this file). The file goes twice:
/// through the SDK's `putFile` (resumable chunks) and as one streamed media request of the whole file (`curl -T`,
/// which never holds the file), past the body limit that bounds ordinary requests. Uploads stream to disk, so the
/// peak should stay within a few MiB of idle whatever the file's size.
struct LargeUploadMemory {
    let options: FilesBenchCommand.Options
    let blocking: (@escaping @Sendable () async throws -> Void) throws -> Void

    struct Figures {
        let sizeMiB: Int
        let idle: Int
        let idlePeak: Int
        let afterSDK: Int
        let afterMedia: Int

        var markdown: String {
            func mib(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
            func delta(_ bytes: Int) -> String { String(format: "+%.1f MiB", Double(bytes - idlePeak) / 1_048_576) }
            var out = "\n## Memory during a \(sizeMiB) MiB upload\n\n"
            out +=
                "The server's resident set (`VmRSS`, and its peak `VmHWM`, from /proc) on a fresh server: idle after "
            out += "one 4 KiB upload, then the peak after the file went up through the SDK's `putFile` (resumable "
            out += "chunks), then after the same file went up again as one streamed media request (`curl -T`).\n\n"
            out += "| figure | resident | over the idle peak |\n| --- | ---: | ---: |\n"
            out += "| idle (`VmRSS`) | \(mib(idle)) | – |\n"
            out += "| idle peak (`VmHWM`, the baseline) | \(mib(idlePeak)) | – |\n"
            out += "| peak after SDK `putFile` of \(sizeMiB) MiB | \(mib(afterSDK)) | \(delta(afterSDK)) |\n"
            out += "| peak after one media request of \(sizeMiB) MiB | \(mib(afterMedia)) | \(delta(afterMedia)) |\n"
            return out
        }
    }

    func measure(work: URL, source: URL, storage makeStorage: (URL) throws -> Storage) throws -> Figures? {
        guard options.rssMiB > 0 else { return nil }
        let server = try HearthServerProcess(
            binary: options.hearth, dataDirectory: work.appendingPathComponent("rss-data"), logDirectory: work,
            threads: max(2, ProcessInfo.processInfo.activeProcessorCount))
        defer { _ = try? server.stop() }
        guard let url = URL(string: server.baseURL) else { throw BenchError("bad server URL \(server.baseURL)") }
        let storage = try makeStorage(url)
        let warmUp = storage.reference().child("bench/warm-up.bin")
        try blocking { _ = try await warmUp.putDataAsync(Data(repeating: 7, count: 4096)) }
        guard let idle = server.residentBytes(), let idlePeak = server.peakResidentBytes() else {
            throw BenchError("no /proc figures for the server")
        }
        log("memory: uploading \(options.rssMiB) MiB through the SDK")
        let big = storage.reference().child("bench/large.bin")
        try blocking { _ = try await big.putFileAsync(from: source) }
        guard let afterSDK = server.peakResidentBytes() else { throw BenchError("the server stopped") }
        log("memory: uploading \(options.rssMiB) MiB as one media request")
        let target = "\(server.baseURL)/v0/b/\(storage.reference().bucket)/o?name=bench%2Flarge-media.bin"
        try Self.curlUpload(file: source, to: target)
        guard let afterMedia = server.peakResidentBytes() else { throw BenchError("the server stopped") }
        return Figures(
            sizeMiB: options.rssMiB, idle: idle, idlePeak: idlePeak, afterSDK: afterSDK, afterMedia: afterMedia)
    }

    /// `curl -T` streams the file from disk, so neither side needs it in memory.
    private static func curlUpload(file: URL, to url: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "curl", "-sS", "-f", "-o", "/dev/null", "-X", "POST", "-H", "Content-Type: application/octet-stream",
            "-H", "Authorization: Bearer owner", "-T", file.path, url,
        ]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchError("the media upload failed (curl)") }
    }
}
