import Dispatch
import Foundation
import Synchronization
import Testing

@testable import HearthStorePostgres

/// The scheduler that runs a node's PostgreSQL commits several at once: no more than its width, in the order queued,
/// and none lost or left behind under a queue that never empties.
@Suite struct CommitLanesTests {
    @Test func runsAtMostItsWidthAtOnceAndStartsJobsInTheOrderQueued() {
        let lanes = CommitLanes(label: "test.lanes", width: 3)
        let running = Mutex(0)
        let mostAtOnce = Mutex(0)
        let started = Mutex<[Int]>([])
        let release = DispatchSemaphore(value: 0)
        for index in 0..<12 {
            lanes.async {
                started.withLock { $0.append(index) }
                let now = running.withLock { count -> Int in
                    count += 1
                    return count
                }
                mostAtOnce.withLock { $0 = max($0, now) }
                release.wait()
                running.withLock { $0 -= 1 }
            }
        }
        // Three jobs hold their lanes; the other nine wait for one to free.
        let deadline = Date().addingTimeInterval(30)
        while running.withLock({ $0 }) < 3, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        Thread.sleep(forTimeInterval: 0.05)
        #expect(running.withLock { $0 } == 3)
        #expect(started.withLock { $0 }.count == 3)
        // Lanes take waiting jobs in the order queued, but two lanes freed at once may run theirs in either order; so
        // free one lane at a time: each release starts exactly the next waiting job.
        for count in 4...12 {
            release.signal()
            while started.withLock({ $0.count }) < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.002) }
            #expect(started.withLock { $0.count } == count)
        }
        for _ in 0..<3 { release.signal() }
        lanes.drain()
        #expect(mostAtOnce.withLock { $0 } == 3)
        let order = started.withLock { $0 }
        #expect(order.count == 12)
        // The first three may start in any order among themselves; the waiting ones are taken in the order queued.
        #expect(Set(order.prefix(3)) == [0, 1, 2])
        #expect(Array(order.dropFirst(3)) == Array(3..<12))
    }

    @Test func aQueueThatNeverEmptiesRunsEveryJobOnce() {
        let lanes = CommitLanes(label: "test.lanes", width: 2)
        let ran = Mutex<[Int]>([])
        // Jobs queue more jobs while the lanes are busy, so the waiting list is compacted while in use.
        for index in 0..<500 {
            lanes.async {
                ran.withLock { $0.append(index) }
                if index % 5 == 0 {
                    lanes.async { ran.withLock { $0.append(1000 + index) } }
                }
            }
        }
        lanes.drain()
        let all = ran.withLock { $0 }
        #expect(all.count == 600)
        #expect(Set(all).count == 600)
    }
}
