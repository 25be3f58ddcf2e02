import HearthCore
import HearthSQLite
import HearthStore

/// The writer's tree and learned-index jobs.
extension CommitWriter {
    /// A tree write in its own savepoint, with its receipt recorded when it committed; see `TreeWriteApplier`.
    func runTree(_ write: TreeWrite) -> Result<(outcome: TreeWriteOutcome, writes: Int), HearthError> {
        let commitTime = nextCommitTime()
        do {
            return .success(
                try connection.savepoint("tree") { () throws -> (outcome: TreeWriteOutcome, writes: Int) in
                    let applied = try TreeWriteApplier.apply(
                        write, commitTime: commitTime.microseconds, in: SQLiteTreeRows(db: connection))
                    if case .committed(let change) = applied.outcome, let receipt = write.receipt {
                        try WriteReceipts.record(
                            receipt.id, answer: receipt.answer(change),
                            retention: configuration.writeReceiptRetention, in: connection)
                    }
                    return applied
                })
        } catch let error as HearthError {
            return .failure(error)
        } catch let error as SQLiteError where error.isBusy {
            return .failure(HearthError(.unavailable, "The database is busy; retry."))
        } catch {
            return .failure(.internal("The tree write failed: \(error)"))
        }
    }

    /// Records and declares a learned index in its own savepoint; answers its ID.
    func runLearn(_ definition: IndexDefinition) -> Result<Int64, HearthError> {
        let time = nextCommitTime()
        do {
            return .success(
                try connection.savepoint("learn") { try LearnedIndexes.record(definition, at: time, in: connection) })
        } catch {
            return .failure(.internal("Learning index \(definition) failed: \(error)"))
        }
    }
}
