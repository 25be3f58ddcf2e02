import HearthCore
import HearthStore
import HearthStoreConformance
import HearthStoreSQLite
import Testing

/// SQLite's transactions: the engine-neutral ones in ``DocumentStoreConformance/transactionChecks``, queries in
/// transactions among them.
@Suite struct TransactionTests {
    @Test(arguments: DocumentStoreConformance.transactionChecks)
    func conformsToTheTransactionSuite(_ check: TransactionConformanceCheck) async throws {
        try await check.run { body in
            let clock = ManualClock()
            let temporary = try TemporaryStore(configure: { $0.clock = clock.read })
            try await body(ClockedDocumentStore(store: temporary.store, clock: clock))
        }
    }
}
