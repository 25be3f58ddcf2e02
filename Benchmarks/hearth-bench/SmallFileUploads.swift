import Foundation
import Hearth

/// The small-file figure of `hearth-bench files`: 4 KiB objects uploaded through the SDK's Storage (`putData`, one
/// multipart request each, every one fsynced and committed by the server), one at a time and `parallel` at once.
struct SmallFileUploads {
    let storage: Storage
    let count: Int
    let parallel: Int

    static let size = 4096

    struct Figures {
        let count: Int
        let parallel: Int
        let sequential: Duration?
        let concurrent: Duration?

        var markdown: String {
            guard let sequential, let concurrent else { return "" }
            func perSecond(_ duration: Duration) -> Double {
                Double(count) / (Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
            }
            var out = "\n## Small files\n\n"
            out += "\(count) uploads of 4 KiB of random bytes each (`putData`, one request per object; the server "
            out += "fsyncs each file and commits its metadata before answering), to distinct names.\n\n"
            out += "| figure | uploads | time | uploads/s |\n| --- | ---: | ---: | ---: |\n"
            out += String(
                format: "| one at a time | %d | %.2f s | %.0f |\n", count, seconds(sequential), perSecond(sequential))
            out += String(
                format: "| %d at once | %d | %.2f s | %.0f |\n", parallel, count, seconds(concurrent),
                perSecond(concurrent))
            return out
        }

        private func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
    }

    /// Runs both figures; `blocking` waits on this thread for work on Swift's pool.
    func measure(
        blocking: (@escaping @Sendable () async throws -> Duration) throws -> Duration
    ) throws -> Figures {
        guard count > 0 else { return Figures(count: 0, parallel: parallel, sequential: nil, concurrent: nil) }
        var generator = SystemRandomNumberGenerator()
        let payloads = (0..<16).map { _ in
            Data((0..<Self.size).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        let root = storage.reference().child("bench/small")
        let count = self.count
        let parallel = self.parallel
        log("small files: \(count) uploads of 4 KiB, one at a time")
        let sequential = try blocking {
            let start = ContinuousClock.now
            for index in 0..<count {
                _ = try await root.child("one/\(index)").putDataAsync(payloads[index % payloads.count])
            }
            return ContinuousClock.now - start
        }
        log("small files: \(count) uploads of 4 KiB, \(parallel) at once")
        let concurrent = try blocking {
            let start = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                var next = 0
                func add() {
                    let index = next
                    next += 1
                    group.addTask { _ = try await root.child("many/\(index)").putDataAsync(payloads[index % 16]) }
                }
                while next < min(parallel, count) { add() }
                while try await group.next() != nil {
                    if next < count { add() }
                }
            }
            return ContinuousClock.now - start
        }
        return Figures(count: count, parallel: parallel, sequential: sequential, concurrent: concurrent)
    }
}
