import Dispatch
import Synchronization

/// A `pauseAfterNumbering` (or `pauseAfterTreeNumbering`) hook that holds the first commit (tree write) to take
/// numbers (signalling `held`, then waiting for `release`) between its numbers and `COMMIT`, and lets every later one
/// through.
func holdingFirstNumbers(
    held: DispatchSemaphore, release: DispatchSemaphore
) -> @Sendable ([Int64]) -> Double {
    let first = Mutex(true)
    return { _ in
        let isFirst = first.withLock { was in
            defer { was = false }
            return was
        }
        guard isFirst else { return 0 }
        held.signal()
        release.wait()
        return 0
    }
}
