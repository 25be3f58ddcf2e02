import HearthCore
import HearthStore
import Testing

/// A check of the transaction suite: it gets the engine with the clock it reads.
public typealias TransactionConformanceCheck = ConformanceCheck<ClockedDocumentStore>

extension DocumentStoreConformance {
    /// Firestore's transaction semantics, on every engine: expiry, age, snapshots, conflicts, the limits, and
    /// queries inside transactions.
    public static let transactionChecks: [TransactionConformanceCheck] =
        transactionDocumentChecks + transactionQueryChecks

    /// Transactions reading documents by name.
    static let transactionDocumentChecks: [TransactionConformanceCheck] = [
        ConformanceCheck("an idle transaction expires after sixty seconds") { engine in
            let (store, clock) = (engine.store, engine.clock)
            let transaction = try store.beginTransaction(.readWrite, caller: nil)
            _ = try store.document(at: path("c/a"), transaction: transaction)
            clock.advance(59)
            _ = try store.document(at: path("c/a"), transaction: transaction)  // alive, and the idle timer restarts
            clock.advance(59)
            try await store.commitOrThrow([set("c/a", ["v": .integer(1)])], transaction: transaction)
            let stale = try store.beginTransaction(.readWrite, caller: nil)
            clock.advance(61)
            let result = await store.commit([set("c/b", [:])], transaction: stale)
            #expect(result.failure?.code == .invalidArgument)
            #expect(try store.document(at: path("c/b")) == nil)
        },
        ConformanceCheck("a transaction older than 270 seconds cannot commit") { engine in
            let (store, clock) = (engine.store, engine.clock)
            let transaction = try store.beginTransaction(.readWrite, caller: nil)
            for _ in 0..<5 {
                clock.advance(55)
                _ = try store.document(at: path("c/a"), transaction: transaction)
            }
            let result = await store.commit([set("c/a", [:])], transaction: transaction)
            #expect(result.failure?.code == .aborted, "a 275-second-old transaction committed")
            #expect(try store.document(at: path("c/a")) == nil)
        },
        ConformanceCheck("a conflicting write aborts the commit and applies nothing") { engine in
            let store = engine.store
            try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
            let transaction = try store.beginTransaction(.readWrite, caller: nil)
            _ = try store.document(at: path("c/a"), transaction: transaction)
            try await store.commitOrThrow([set("c/a", ["v": .integer(2)])])
            let result = await store.commit(
                [set("c/a", ["v": .integer(3)]), set("c/other", [:])], transaction: transaction)
            #expect(result.failure == ReadSetValidator.conflict)
            #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(2)])
            #expect(try store.document(at: path("c/other")) == nil)
            // The transaction ended with its failed commit.
            #expect(await store.commit([], transaction: transaction).failure?.code == .invalidArgument)
        },
        ConformanceCheck("a document read as missing and created meanwhile aborts the commit") { engine in
            let store = engine.store
            let transaction = try store.beginTransaction(.readWrite, caller: nil)
            #expect(try store.document(at: path("c/new"), transaction: transaction) == nil)
            try await store.commitOrThrow([set("c/new", ["by": .string("other")])])
            let result = await store.commit([set("c/new", ["by": .string("transaction")])], transaction: transaction)
            #expect(result.failure?.code == .aborted)
            #expect(try store.document(at: path("c/new"))?.fields() == ["by": .string("other")])
        },
        ConformanceCheck("an unchanged read set commits, and only the first read of a path counts") { engine in
            let store = engine.store
            try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
            let transaction = try store.beginTransaction(.readWrite, caller: nil)
            let read = try store.documents(at: [path("c/a"), path("c/missing")], transaction: transaction)
            #expect(try read[0]?.fields() == ["v": .integer(1)])
            #expect(read[1] == nil)
            // A write elsewhere does not conflict.
            try await store.commitOrThrow([set("c/elsewhere", [:])])
            let result = try await store.commitOrThrow(
                [set("c/a", ["v": .integer(2)]), set("c/missing", ["v": .integer(1)])], transaction: transaction)
            #expect(result.writeResults.count == 2)
            #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(2)])
            #expect(try store.document(at: path("c/missing"))?.fields() == ["v": .integer(1)])
            // A second read of a changed document does not hide the change from the commit.
            let second = try store.beginTransaction(.readWrite, caller: nil)
            _ = try store.document(at: path("c/a"), transaction: second)
            try await store.commitOrThrow([set("c/a", ["v": .integer(3)])])
            _ = try store.document(at: path("c/a"), transaction: second)
            #expect(await store.commit([set("c/a", [:])], transaction: second).failure?.code == .aborted)
        },
        ConformanceCheck("a read-only transaction keeps its snapshot and cannot write") { engine in
            let store = engine.store
            try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
            let transaction = try store.beginTransaction(.readOnly, caller: nil)
            try await store.commitOrThrow([set("c/a", ["v": .integer(2)]), set("c/b", [:])])
            #expect(try store.document(at: path("c/a"), transaction: transaction)?.fields() == ["v": .integer(1)])
            #expect(try store.document(at: path("c/b"), transaction: transaction) == nil)
            #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(2)])
            try store.rollback(transaction)
            #expect(throws: HearthError.self) { try store.rollback(transaction) }
            #expect(throws: HearthError.self) { try store.document(at: path("c/a"), transaction: transaction) }

            let writer = try store.beginTransaction(.readOnly, caller: nil)
            let refused = await store.commit([set("c/c", [:])], transaction: writer)
            #expect(refused.failure?.code == .invalidArgument)
            #expect(try store.document(at: path("c/c")) == nil)
        },
        ConformanceCheck("an unknown transaction is refused") { (engine: ClockedDocumentStore) async throws in
            let store = engine.store
            let unknown = TransactionID(bytes: Array(repeating: 7, count: 16))
            #expect(await store.commit([set("c/a", [:])], transaction: unknown).failure?.code == .invalidArgument)
            #expect(try store.document(at: path("c/a")) == nil)
            let read = #expect(throws: HearthError.self) { try store.document(at: path("c/a"), transaction: unknown) }
            #expect(read?.code == .invalidArgument)
            #expect(throws: HearthError.self) { try store.rollback(unknown) }
        },
        ConformanceCheck("one caller cannot take every read-only slot") { engine in
            let store = engine.store
            var mine: [TransactionID] = []
            for _ in 0..<8 { mine.append(try store.beginTransaction(.readOnly, caller: "address 10.0.0.1")) }
            let refused = #expect(throws: HearthError.self) {
                try store.beginTransaction(.readOnly, caller: "address 10.0.0.1")
            }
            #expect(refused?.code == .resourceExhausted)
            // Another caller, and the administrator, still get theirs.
            let other = try store.beginTransaction(.readOnly, caller: "user bob")
            let admin = try store.beginTransaction(.readOnly, caller: nil)
            // A read-write transaction still fits beside the caller's eight snapshots.
            let readWrite = try store.beginTransaction(.readWrite, caller: "address 10.0.0.1")
            // Ending one frees its slot.
            try store.rollback(mine.removeFirst())
            mine.append(try store.beginTransaction(.readOnly, caller: "address 10.0.0.1"))
            for id in mine + [other, admin, readWrite] { try store.rollback(id) }
        },
        ConformanceCheck("one caller cannot open transactions without bound") { engine in
            let (store, clock) = (engine.store, engine.clock)
            for _ in 0..<256 { _ = try store.beginTransaction(.readWrite, caller: "user eve") }
            let refused = #expect(throws: HearthError.self) {
                try store.beginTransaction(.readWrite, caller: "user eve")
            }
            #expect(refused?.code == .resourceExhausted)
            _ = try store.beginTransaction(.readWrite, caller: "user ann")
            // Idle ones expire, and with them the refusal.
            clock.advance(61)
            _ = try store.beginTransaction(.readWrite, caller: "user eve")
        },
        ConformanceCheck("a read-only snapshot ends sixty seconds after it began, even while used") { engine in
            let (store, clock) = (engine.store, engine.clock)
            try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
            let transaction = try store.beginTransaction(.readOnly, caller: "user ann")
            for _ in 0..<5 {
                clock.advance(11)
                #expect(try store.document(at: path("c/a"), transaction: transaction)?.fields() == ["v": .integer(1)])
            }
            clock.advance(6)
            let expired = #expect(throws: HearthError.self) {
                try store.document(at: path("c/a"), transaction: transaction)
            }
            #expect(expired?.message.contains("expired") == true)
            // Its slot is free again.
            for _ in 0..<8 { _ = try store.beginTransaction(.readOnly, caller: "user ann") }
        },
    ]
}

extension Result {
    /// The failure, `nil` on success.
    public var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
