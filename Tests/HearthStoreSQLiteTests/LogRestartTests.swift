import Foundation
import HearthCore
import HearthStore
import HearthStoreConformance
import HearthStoreSQLite
import Synchronization
import Testing

/// Under writes that never pause, SQLite never rewinds the write-ahead log by itself (a passive checkpoint only
/// copies it); the store must keep the file near `logRestartBytes` instead of letting it grow with every write.
@Suite struct LogRestartTests {
    /// Keeps `inFlight` commits queued at every moment, each completion submitting the next, until `total` have
    /// committed; samples the log file's size every few commits and returns the largest seen.
    private func writeWithoutPause(
        _ store: SQLiteDocumentStore, directory: String, total: Int, inFlight: Int
    ) async -> (largestLog: Int, failures: Int, paths: [ResourcePath]) {
        let log = (directory as NSString).appendingPathComponent(SQLiteDocumentStore.fileName + "-wal")
        let progress = Mutex((submitted: 0, finished: 0, failures: 0, largestLog: 0, paths: [ResourcePath]()))
        return await withCheckedContinuation { continuation in
            @Sendable func submitNext() {
                let number = progress.withLock { state -> Int? in
                    guard state.submitted < total else { return nil }
                    state.submitted += 1
                    return state.submitted
                }
                guard let number else { return }
                // Random IDs, as auto IDs are: every write dirties leaves all over the B-trees.
                let write = set(
                    "pressure/\(UUID().uuidString)", ["n": .integer(Int64(number)), "tag": .string("t\(number % 7)")])
                store.commit([write], in: DatabaseName(project: "test")) { result in
                    let size = number % 25 == 0 ? Self.fileSize(log) : 0
                    let done = progress.withLock { state -> Bool in
                        state.finished += 1
                        if case .failure = result { state.failures += 1 } else { state.paths.append(write.path) }
                        state.largestLog = max(state.largestLog, size)
                        return state.finished == total
                    }
                    if done {
                        let state = progress.withLock { $0 }
                        continuation.resume(returning: (state.largestLog, state.failures, state.paths))
                    } else {
                        submitNext()
                    }
                }
            }
            for _ in 0..<inFlight { submitNext() }
        }
    }

    private static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test func aLogThatKeepsGrowingIsRewoundWhileWritesContinue() async throws {
        let temporary = try TemporaryStore { configuration in
            configuration.logRestartBytes = 256 << 10
            configuration.checkpointInterval = .milliseconds(20)
        }
        // About 12 KiB of log per random-ID document with 1 KiB pages: some 70 MiB written in all, so a log that
        // was never rewound ends far above the bound below.
        let total = 6_000
        let (largestLog, failures, paths) = await writeWithoutPause(
            temporary.store, directory: temporary.directory, total: total, inFlight: 16)
        #expect(failures == 0)
        #expect(largestLog > 0)
        #expect(largestLog < 16 << 20, "the log reached \(largestLog) bytes")
        let stored = try temporary.store.documents(at: paths)
        #expect(stored.count == total && stored.allSatisfy { $0 != nil })
    }
}
