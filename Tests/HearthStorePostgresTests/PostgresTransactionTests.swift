import Dispatch
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthStore
import HearthStoreConformance
import Testing

@testable import HearthStorePostgres

/// Transactions on PostgreSQL: the engine-neutral suite SQLite runs too, then what several nodes on one database
/// must get right — a transaction begun on one node finishing on another, and concurrent commits through two nodes
/// against the same documents never losing an update.
@Suite("PostgreSQL transactions", TestCluster.requirement)
struct PostgresTransactionTests {
    @Test(arguments: DocumentStoreConformance.transactionChecks)
    func conformsToTheTransactionSuite(_ check: TransactionConformanceCheck) async throws {
        try await check.run { body in
            let clock = ManualClock()
            var configuration = PostgresDocumentStore.Configuration(conninfo: try TestCluster.freshDatabase())
            configuration.clock = clock.read
            let store = try PostgresDocumentStore(configuration: configuration)
            defer { store.close() }
            try await body(ClockedDocumentStore(store: store, clock: clock))
        }
    }

    @Test func aTransactionBegunOnOneNodeReadsAndCommitsOnTheOther() async throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let (first, second) = (nodes.first, nodes.second)
        try await first.commitOrThrow([set("c/a", ["v": .integer(1)])])

        let transaction = try first.beginTransaction(.readWrite, caller: "user ann")
        #expect(try first.document(at: path("c/a"), transaction: transaction)?.fields() == ["v": .integer(1)])
        #expect(try second.document(at: path("c/b"), transaction: transaction) == nil)
        try await second.commitOrThrow(
            [set("c/a", ["v": .integer(2)]), set("c/b", ["v": .integer(1)])], transaction: transaction)
        #expect(try first.document(at: path("c/a"))?.fields() == ["v": .integer(2)])
        // Committed on the second node, it is gone on the first too.
        #expect(await first.commit([], transaction: transaction).failure?.code == .invalidArgument)

        // What it read on one node is checked at its commit on the other.
        let conflicted = try second.beginTransaction(.readWrite, caller: nil)
        _ = try second.document(at: path("c/b"), transaction: conflicted)
        try await second.commitOrThrow([set("c/b", ["v": .integer(5)])])
        let result = await first.commit([set("c/b", ["v": .integer(9)])], transaction: conflicted)
        #expect(result.failure == ReadSetValidator.conflict)
        #expect(try first.document(at: path("c/b"))?.fields() == ["v": .integer(5)])

        // Rolled back on one node, it is unknown on the other.
        let rolledBack = try first.beginTransaction(.readWrite, caller: nil)
        try second.rollback(rolledBack)
        #expect(throws: HearthError.self) { try first.rollback(rolledBack) }
    }

    @Test func aReadOnlyTransactionBegunOnOneNodeReadsItsSnapshotOnTheOther() async throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let (first, second) = (nodes.first, nodes.second)
        try await first.commitOrThrow([set("c/a", ["v": .integer(1)])])
        let transaction = try first.beginTransaction(.readOnly, caller: nil)
        try await second.commitOrThrow([set("c/a", ["v": .integer(2)]), set("c/b", [:])])
        let seen = try second.documents(at: [path("c/a"), path("c/b")], transaction: transaction)
        #expect(try seen[0]?.fields() == ["v": .integer(1)])
        #expect(seen[1] == nil)
        #expect(try first.document(at: path("c/a"), transaction: transaction)?.fields() == ["v": .integer(1)])
        // Ended on the second node, its snapshot cannot be read on either.
        try second.rollback(transaction)
        #expect(throws: HearthError.self) { try first.document(at: path("c/a"), transaction: transaction) }
    }

    @Test func aReadOnlySnapshotWhoseNodeClosedHasExpired() async throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        try await nodes.first.commitOrThrow([set("c/a", ["v": .integer(1)])])
        let transaction = try nodes.first.beginTransaction(.readOnly, caller: nil)
        nodes.first.close()
        let error = #expect(throws: HearthError.self) {
            try nodes.second.document(at: path("c/a"), transaction: transaction)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("expired") == true)
    }

    @Test func concurrentReadModifyWriteIncrementsThroughTwoNodesLoseNothing() async throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let (workers, increments) = (8, 5)
        let retries = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<workers {
                let store = worker % 2 == 0 ? nodes.first : nodes.second
                group.addTask { try await Self.increment(path("c/counter"), times: increments, on: store) }
            }
            return try await group.reduce(0, +)
        }
        let stored = try #require(try nodes.second.document(at: path("c/counter")))
        #expect(try stored.fields()["n"] == .integer(Int64(workers * increments)), "after \(retries) retries")
        // One change per successful increment, each from the value the one before left.
        let log = try nodes.first.changes(after: 0, limit: 1000)
        #expect(log.count == workers * increments)
        for (previous, next) in zip(log, log.dropFirst()) { #expect(next.before == previous.after) }
    }

    @Test func ofTransactionsThatEachFoundADocumentMissingOnlyOneCreatesIt() async throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        // Each reads the document as missing first, then all commit together.
        let transactions = try (0..<8).map { index in
            let store = index % 2 == 0 ? nodes.first : nodes.second
            let transaction = try store.beginTransaction(.readWrite, caller: nil)
            #expect(try store.document(at: path("c/once"), transaction: transaction) == nil)
            return (store, transaction, index)
        }
        let outcomes = await withTaskGroup(of: ErrorCode?.self) { group in
            for (store, transaction, index) in transactions {
                group.addTask {
                    let result = await store.commit(
                        [set("c/once", ["by": .integer(Int64(index))])], transaction: transaction)
                    return result.failure?.code
                }
            }
            return await group.reduce(into: [ErrorCode?]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == nil }.count == 1, "\(outcomes)")
        #expect(outcomes.compactMap { $0 }.allSatisfy { $0 == .aborted }, "\(outcomes)")
        #expect(try nodes.first.changes(after: 0, limit: 100).count == 1)
    }

    /// The commit-time check on its own, without the commit clock that orders commits today: two commits whose
    /// transactions both found `c/a` missing check and write it side by side; the second waits on the first's lock
    /// and then sees its document, so it cannot pass too.
    @Test func twoChecksOfOneReadSetSideBySideCannotBothPass() async throws {
        let info = try TestCluster.freshDatabase()
        try PostgresDocumentStore(configuration: .init(conninfo: info)).close()  // migrates
        let (one, two, observer) = (
            try PostgresConnection(conninfo: info), try PostgresConnection(conninfo: info),
            try PostgresConnection(conninfo: info)
        )
        defer { for connection in [one, two, observer] { connection.close() } }
        let missing: Timestamp? = nil
        let reads = TransactionReadSet(documents: [path("c/a"): missing])
        let write = set("c/a", ["by": .integer(1)])
        try one.query("BEGIN")
        try PostgresDocumentStore.lockAndValidateDocuments([write], reads: reads, in: one)
        // The second check blocks its thread while it waits: a thread of its own, not one of Swift's few
        // cooperative threads the rest of the tests need meanwhile.
        let second = Task {
            await withCheckedContinuation { (continuation: CheckedContinuation<ErrorCode?, Never>) in
                DispatchQueue.global().async {
                    continuation.resume(returning: Self.check(reads, writing: write, in: two))
                }
            }
        }
        // Once the second waits for the first's lock, the first writes the document and commits.
        var waits = 0
        while try observer.query("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")[0]
            .int(0) == 0
        {
            waits += 1
            try #require(waits < 3000, "the second check never waited for the first's lock")
            try await Task.sleep(for: .milliseconds(10))
        }
        let stamp = Timestamp(microseconds: 1_000_000)
        try PostgresDocumentRows.store(
            StoredDocument(path: path("c/a"), fieldsJSON: Array("{}".utf8), createTime: stamp, updateTime: stamp),
            in: one)
        try one.query("COMMIT")
        let code = await second.value
        #expect(code == .aborted)
    }

    /// A serialization failure PostgreSQL raises (SQLSTATE 40001), and a deadlock (40P01), reach the client as
    /// `ABORTED`, which it retries — never as `INTERNAL`.
    @Test func serializationFailuresAndDeadlocksAreAborted() throws {
        let info = try TestCluster.freshDatabase()
        try PostgresDocumentStore(configuration: .init(conninfo: info)).close()  // migrates
        let (one, two) = (try PostgresConnection(conninfo: info), try PostgresConnection(conninfo: info))
        defer { for connection in [one, two] { connection.close() } }
        try one.query("CREATE TABLE counters(id int PRIMARY KEY, n int NOT NULL)")
        try one.query("INSERT INTO counters VALUES (1, 0)")
        try one.query("BEGIN ISOLATION LEVEL REPEATABLE READ")
        _ = try one.query("SELECT n FROM counters WHERE id = 1")
        try two.query("UPDATE counters SET n = n + 1 WHERE id = 1")
        let failure = #expect(throws: PostgresError.self) {
            try one.query("UPDATE counters SET n = n + 1 WHERE id = 1")
        }
        _ = try? one.query("ROLLBACK")
        let serialization = try #require(failure)
        #expect(serialization.sqlState == "40001")
        #expect(hearthError(serialization, doing: "committing").code == .aborted)
        let deadlock = PostgresError(kind: .deadlock, sqlState: "40P01", message: "deadlock detected")
        #expect(hearthError(deadlock, doing: "committing").code == .aborted)
    }

    /// A read set as the ledger keeps it for every node: documents (missing ones too) and queries with their
    /// results come back whole at the commit, on the other node.
    @Test func aReadSetWithQueriesComesBackWholeOnTheOtherNode() async throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let transaction = try nodes.first.beginTransaction(.readWrite, caller: nil)
        var query = StructuredQuery(parent: path("users/u"), collectionID: "posts")
        query.filter = .and([
            .field(FieldPath(segments: ["state"]), .equal, .string("open")),
            .field(FieldPath(segments: ["rank"]), .greaterThan, .integer(2)),
        ])
        query.orderBy = [QueryOrder(field: FieldPath(segments: ["rank"]), descending: true)]
        query.limit = 3
        let stamp = Timestamp(microseconds: 1_700_000_000_123_456)
        let found = StoredDocument(
            path: path("users/u/posts/p"), fieldsJSON: Array("{}".utf8), createTime: stamp, updateTime: stamp)
        try nodes.first.transactions.record(transaction, query: query, results: [found])
        try nodes.second.transactions.record(transaction, documents: [(path("c/a"), nil), (path("c/b"), found)])
        // A later read of a path keeps the first one's version.
        try nodes.second.transactions.record(transaction, documents: [(path("c/a"), found)])
        let reads = try #require(try nodes.second.transactions.finishForCommit(transaction))
        let missing: Timestamp? = nil
        #expect(reads.documents == [path("c/a"): missing, path("c/b"): stamp])
        #expect(reads.queries.count == 1)
        #expect(reads.queries.first?.query == query)
        #expect(reads.queries.first?.results == [found.path: stamp])
        #expect(throws: HearthError.self) { try nodes.first.transactions.finishForCommit(transaction) }
    }

    /// One commit-time check of `reads` before writing `write`, in a transaction of its own on `db`, rolled back
    /// after: `nil` when it passed, else the error's code.
    private static func check(
        _ reads: TransactionReadSet, writing write: Write, in db: PostgresConnection
    ) -> ErrorCode? {
        do {
            try db.query("BEGIN")
            defer { _ = try? db.query("ROLLBACK") }
            try PostgresDocumentStore.lockAndValidateDocuments([write], reads: reads, in: db)
            return nil
        } catch let error as HearthError {
            return error.code
        } catch {
            return .internal
        }
    }

    /// Adds one to `n` at `target` `times` times, each in a transaction retried on `ABORTED` as a client's
    /// `run_transaction` does; answers how many attempts aborted.
    private static func increment(
        _ target: ResourcePath, times: Int, on store: PostgresDocumentStore
    ) async throws -> Int {
        var aborted = 0
        for _ in 0..<times {
            var committed = false
            while !committed {
                let transaction = try store.beginTransaction(.readWrite, caller: nil)
                let current = try store.document(at: target, transaction: transaction)
                var value: Int64 = 0
                if case .integer(let n)? = try current?.fields()["n"] { value = n }
                let write = Write(path: target, operation: .update(fields: ["n": .integer(value + 1)], mask: nil))
                switch await store.commit([write], transaction: transaction) {
                case .success: committed = true
                case .failure(let error) where error.code == .aborted: aborted += 1
                case .failure(let error): throw error
                }
            }
        }
        return aborted
    }
}
