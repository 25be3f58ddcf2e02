import HearthPostgres
import HearthPostgresTestSupport
import Testing

@Suite("HearthPostgres against a throwaway cluster", TestCluster.requirement)
struct PostgresConnectionTests {
    @Test func boundParametersRoundTripInTextAndBinary() throws {
        let connection = try PostgresConnection(conninfo: TestCluster.freshDatabase())
        try connection.query("CREATE TABLE t (id int8 PRIMARY KEY, name text, data bytea, flag bool)")
        // A quote and a semicolon in a bound value stay data, never SQL.
        try connection.query(
            "INSERT INTO t VALUES ($1, $2, $3, $4)",
            [.int(7), .text("it's; DROP TABLE t"), .binary([0, 1, 254, 255]), .bool(true)])
        try connection.query("INSERT INTO t VALUES ($1, $2, $3, $4)", [.int(-3), .null, .null, .bool(false)])
        let text = try connection.query("SELECT id, name, data, flag FROM t ORDER BY id")
        #expect(text.count == 2)
        #expect(try text[0].int(0) == -3)
        #expect(try text[0].string(1) == nil)
        #expect(try text[0].bool(3) == false)
        #expect(try text[1].string(1) == "it's; DROP TABLE t")
        #expect(try text[1].bytes(2) == [0, 1, 254, 255])
        let binary = try connection.query("SELECT id, data, flag FROM t ORDER BY id", binaryResults: true)
        #expect(try binary[0].int(0) == -3)
        #expect(try binary[1].int(0) == 7)
        #expect(try binary[1].bytes(1) == [0, 1, 254, 255])
        #expect(try binary[1].bool(2) == true)
    }

    @Test func uniqueViolationCarriesItsSQLState() throws {
        let connection = try PostgresConnection(conninfo: TestCluster.freshDatabase())
        try connection.query("CREATE TABLE t (id int8 PRIMARY KEY)")
        try connection.query("INSERT INTO t VALUES (1)")
        let error = #expect(throws: PostgresError.self) { try connection.query("INSERT INTO t VALUES (1)") }
        #expect(error?.kind == .uniqueViolation)
        #expect(error?.sqlState == "23505")
        // The connection stays usable after a server error.
        #expect(try connection.query("SELECT count(*) FROM t")[0].int(0) == 1)
    }

    @Test func syntaxErrorIsAServerErrorWithItsState() throws {
        let connection = try PostgresConnection(conninfo: TestCluster.freshDatabase())
        let error = #expect(throws: PostgresError.self) { try connection.query("SELEC 1") }
        #expect(error?.kind == .server)
        #expect(error?.sqlState == "42601")
    }

    @Test func failedTransactionRollsBackEverything() throws {
        let connection = try PostgresConnection(conninfo: TestCluster.freshDatabase())
        try connection.query("CREATE TABLE t (id int8 PRIMARY KEY)")
        #expect(throws: PostgresError.self) {
            try connection.transaction { tx in
                try tx.query("INSERT INTO t VALUES (1)")
                try tx.query("INSERT INTO t VALUES (1)")
            }
        }
        #expect(try connection.query("SELECT count(*) FROM t")[0].int(0) == 0)
        try connection.transaction { tx in try tx.query("INSERT INTO t VALUES (2)") }
        #expect(try connection.query("SELECT count(*) FROM t")[0].int(0) == 1)
    }

    @Test func concurrentUpdateUnderRepeatableReadIsASerializationFailure() throws {
        let info = try TestCluster.freshDatabase()
        let first = try PostgresConnection(conninfo: info)
        let second = try PostgresConnection(conninfo: info)
        try first.query("CREATE TABLE t (id int8 PRIMARY KEY, n int8)")
        try first.query("INSERT INTO t VALUES (1, 0)")
        try first.query("BEGIN ISOLATION LEVEL REPEATABLE READ")
        #expect(try first.query("SELECT n FROM t WHERE id = 1")[0].int(0) == 0)
        try second.query("UPDATE t SET n = n + 1 WHERE id = 1")
        let error = #expect(throws: PostgresError.self) { try first.query("UPDATE t SET n = n + 1 WHERE id = 1") }
        #expect(error?.kind == .serializationFailure)
        #expect(error?.isRetryable == true)
        try first.query("ROLLBACK")
    }

    @Test func terminatedBackendIsConnectionLost() throws {
        let info = try TestCluster.freshDatabase()
        let victim = try PostgresConnection(conninfo: info)
        let killer = try PostgresConnection(conninfo: info)
        let pid = try #require(try victim.query("SELECT pg_backend_pid()")[0].int(0))
        try killer.query("SELECT pg_terminate_backend($1::int4)", [.int(pid)])
        let error = #expect(throws: PostgresError.self) { try victim.query("SELECT 1") }
        #expect(error?.kind == .connectionLost)
        #expect(!victim.isHealthy)
    }

    @Test func badConninfoFailsToConnect() throws {
        let error = #expect(throws: PostgresError.self) {
            try PostgresConnection(conninfo: "host=127.0.0.1 port=1 connect_timeout=2")
        }
        #expect(error?.kind == .connectFailed)
    }

    @Test func notificationsArriveOnAListeningConnection() throws {
        let info = try TestCluster.freshDatabase()
        let listener = try PostgresConnection(conninfo: info)
        let sender = try PostgresConnection(conninfo: info)
        try listener.listen("changes")
        try sender.query("SELECT pg_notify('changes', $1)", [.text("seq 42")])
        var received: [PostgresNotification] = []
        for _ in 0..<50 where received.isEmpty {
            received = try listener.notifications(waitingUpTo: 200)
        }
        #expect(received.map(\.payload) == ["seq 42"])
        #expect(received.first?.channel == "changes")
    }

    @Test func textWithANulCharacterIsRefusedNotCutShort() throws {
        let connection = try PostgresConnection(conninfo: TestCluster.freshDatabase())
        try connection.query("CREATE TABLE t (v text)")
        let error = #expect(throws: PostgresError.self) {
            try connection.query("INSERT INTO t VALUES ($1)", [.text("a\u{0}b")])
        }
        #expect(error?.kind == .invalidParameter)
        #expect(try connection.query("SELECT count(*) FROM t")[0].int(0) == 0)
    }

    @Test func invalidIdentifiersAreRefused() throws {
        #expect(throws: PostgresError.self) { try PostgresIdentifier.quote("") }
        #expect(throws: PostgresError.self) { try PostgresIdentifier.quote(String(repeating: "a", count: 64)) }
        #expect(try PostgresIdentifier.quote(#"a"b"#) == #""a""b""#)
    }

    @Test func poolHandsOutAtMostItsCapacityAndReplacesBrokenConnections() async throws {
        let info = try TestCluster.freshDatabase()
        let pool = PostgresPool(conninfo: info, capacity: 2)
        let pids = try await withThrowingTaskGroup(of: Int64.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await pool.withConnection { try #require(try $0.query("SELECT pg_backend_pid()")[0].int(0)) }
                }
            }
            return try await group.reduce(into: Set<Int64>()) { $0.insert($1) }
        }
        #expect(pids.count <= 2)
        // A connection whose backend was killed is dropped, and the next caller gets a working one.
        let killer = try PostgresConnection(conninfo: info)
        for pid in pids { try killer.query("SELECT pg_terminate_backend($1::int4)", [.int(pid)]) }
        for _ in 0..<3 {
            _ = try? await pool.withConnection { try $0.query("SELECT 1") }
        }
        let answer = try await pool.withConnection { try $0.query("SELECT 41 + 1")[0].int(0) }
        #expect(answer == 42)
    }
}

@Suite("HearthPostgres: the pool and server restarts", TestCluster.requirement)
struct PostgresPoolTests {
    @Test func callersUpToTheCapacityHoldConnectionsAtOnce() async throws {
        let pool = PostgresPool(conninfo: try TestCluster.freshDatabase(), capacity: 2)
        // The first caller waits, on its connection, for a notification the second sends on another: a pool that
        // ran one caller at a time would never deliver it.
        let (listening, listeningContinuation) = AsyncStream<Void>.makeStream()
        async let received = pool.withConnection { connection -> [String] in
            try connection.listen("pool")
            listeningContinuation.yield()
            var payloads: [String] = []
            for _ in 0..<300 where payloads.isEmpty {
                payloads = try connection.notifications(waitingUpTo: 100).map(\.payload)
            }
            return payloads
        }
        for await _ in listening { break }
        _ = try await pool.withConnection { try $0.query("SELECT pg_notify('pool', 'from the second caller')") }
        #expect(try await received == ["from the second caller"])
    }

    @Test func concurrentCallersLoseNoWork() async throws {
        let info = try TestCluster.freshDatabase()
        let setup = try PostgresConnection(conninfo: info)
        try setup.query("CREATE TABLE counter (n int8 NOT NULL)")
        try setup.query("INSERT INTO counter VALUES (0)")
        let pool = PostgresPool(conninfo: info, capacity: 3)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    for _ in 0..<10 {
                        try await pool.withConnection { connection in
                            try connection.transaction { tx in
                                let updated = try tx.query("UPDATE counter SET n = n + 1")
                                #expect(updated.affectedRows == 1)
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try setup.query("SELECT n FROM counter")[0].int(0) == 120)
        let backends = try setup.query(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        #expect(try backends[0].int(0)! <= 3)
    }

    @Test func aTransactionWhoseBodyThrowsRollsBackAndLeavesTheConnectionUsable() throws {
        struct Refused: Error {}
        let connection = try PostgresConnection(conninfo: TestCluster.freshDatabase())
        try connection.query("CREATE TABLE t (id int8 PRIMARY KEY)")
        #expect(throws: Refused.self) {
            try connection.transaction(isolation: .serializable) { tx in
                try tx.query("INSERT INTO t VALUES (1)")
                throw Refused()
            }
        }
        #expect(try connection.query("SELECT count(*) FROM t")[0].int(0) == 0)
        // Not left inside an aborted transaction: the next statement runs on its own.
        try connection.query("INSERT INTO t VALUES (2)")
        #expect(try connection.query("SELECT count(*) FROM t")[0].int(0) == 1)
    }

    @Test func afterTheServerRestartsOldConnectionsReportLossAndThePoolReconnects() async throws {
        let cluster = try TestCluster()
        defer { cluster.stop() }
        let info = try cluster.createDatabase()
        let connection = try PostgresConnection(conninfo: info)
        try connection.query("CREATE TABLE t (v text)")
        try connection.query("INSERT INTO t VALUES ($1)", [.text("kept")])
        let pool = PostgresPool(conninfo: info, capacity: 1)
        let before = try await pool.withConnection { try $0.query("SELECT pg_backend_pid()")[0].int(0) }

        try cluster.restart()

        let error = #expect(throws: PostgresError.self) { try connection.query("SELECT 1") }
        #expect(error?.kind == .connectionLost)
        #expect(!connection.isHealthy)
        // The pool's idle connection died with the server: its next use fails as lost, and the one after gets a
        // new connection to the restarted server.
        do {
            _ = try await pool.withConnection { try $0.query("SELECT 1") }
        } catch {
            #expect((error as? PostgresError)?.kind == .connectionLost)
        }
        let value = try await pool.withConnection { try $0.query("SELECT v FROM t")[0].string(0) }
        #expect(value == "kept")
        let after = try await pool.withConnection { try $0.query("SELECT pg_backend_pid()")[0].int(0) }
        #expect(after != before)
    }
}
