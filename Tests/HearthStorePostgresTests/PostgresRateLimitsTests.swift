import Foundation
import HearthPostgres
import HearthPostgresTestSupport
import Synchronization
import Testing

@testable import HearthAuth
@testable import HearthStorePostgres

/// The rate limits' buckets in PostgreSQL (`PostgresRateLimits`): what two nodes racing on one bucket count, and what
/// an attempt is answered while the database is out of reach.
@Suite("Rate limits on PostgreSQL", TestCluster.requirement)
struct PostgresRateLimitsTests {
    @Test("attempts that two nodes race on one new bucket are all counted: exactly the limit is allowed")
    func racingNodesCountEveryAttempt() throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let limits = [PostgresRateLimits(store: nodes.first), PostgresRateLimits(store: nodes.second)]
        let limit = RateLimits.Limit(count: 5, seconds: 3600)
        let attempts = 16
        let allowed = Mutex(0)
        let failures = Mutex<[String]>([])
        // Every attempt is held at the bucket table until all of them are in flight, then all go at once: the race
        // two nodes' first attempts on a new key run, made certain rather than left to chance.
        let gate = try PostgresConnection(conninfo: nodes.info)
        defer { gate.close() }
        try gate.query("BEGIN")
        try gate.query("LOCK TABLE auth_rate_buckets IN EXCLUSIVE MODE")
        let done = DispatchGroup()
        for index in 0..<attempts {
            done.enter()
            Thread {
                do {
                    let limiter = limits[index % 2]
                    if try limiter.change(scope: "address", key: "203.0.113.7", limit: limit, now: 1_000, spend: true) {
                        allowed.withLock { $0 += 1 }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
                done.leave()
            }.start()
        }
        let waiting = """
            SELECT count(*) FROM pg_locks WHERE relation = 'auth_rate_buckets'::regclass AND NOT granted
            """
        var rounds = 0
        while try gate.query(waiting)[0].int(0) ?? 0 < Int64(attempts), rounds < 6_000 {
            usleep(10_000)
            rounds += 1
        }
        #expect(try gate.query(waiting)[0].int(0) == Int64(attempts), "every attempt waits at the table")
        try gate.query("COMMIT")
        done.wait()
        #expect(failures.withLock { $0 } == [])
        #expect(allowed.withLock { $0 } == limit.count)
        // Both nodes see the bucket empty.
        for limiter in limits {
            #expect(
                try !limiter.change(scope: "address", key: "203.0.113.7", limit: limit, now: 1_000, spend: false))
        }
    }

    @Test("while PostgreSQL cannot be reached an attempt is refused as UNAVAILABLE, not let through")
    func unreachableFailsClosed() throws {
        let nodes = try TwoNodes()
        nodes.close()
        let limiter = PostgresRateLimits(store: nodes.first)
        let limit = RateLimits.Limit(count: 5, seconds: 3600)
        var answer = "allowed"
        do {
            _ = try limiter.change(scope: "account", key: "a@example.com", limit: limit, now: 1_000, spend: true)
        } catch {
            answer = "\(error.status) \(error.statusName ?? "")"
        }
        #expect(answer == "503 UNAVAILABLE")
    }
}
