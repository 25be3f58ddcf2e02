import HearthCore
import HearthSQLite
import HearthStore

/// The writer's typed jobs: each says what it changes, and the writer alone runs its savepoint, records its receipt,
/// counts it, and publishes its changes after `COMMIT` (dropping them when its savepoint or the group rolls back).
extension CommitWriter {
    /// A document commit: its writes, the transaction's reads to validate, and the rules check to run on it.
    struct CommitJob: Sendable {
        var writes: [Write]
        var database: DatabaseName
        var reads: TransactionRegistry.ReadSet?
        var judge: CommitJudge?
        /// The client's idempotency key, recorded with the answer in the commit's savepoint.
        var receipt: WriteReceipt<CommitResult>? = nil
        /// Per write, its fields as stored when they do not depend on the current document; made by `init`, on the
        /// submitting thread.
        let encoded: [EncodedFields?]

        init(
            writes: [Write], database: DatabaseName, reads: TransactionRegistry.ReadSet?, judge: CommitJudge?,
            receipt: WriteReceipt<CommitResult>? = nil
        ) {
            self.writes = writes
            self.database = database
            self.reads = reads
            self.judge = judge
            self.receipt = receipt
            encoded = writes.map(EncodedFields.init(precomputing:))
        }
    }

    /// One unit of work for the writer, with the completion that receives its typed outcome after `COMMIT` (or its
    /// failure). See `freesSpace` for which jobs a full disk still lets through.
    enum Job: Sendable {
        /// A document commit (`DocumentStore.commit`).
        case commit(CommitJob, @Sendable (Result<CommitResult, HearthError>) -> Void)
        /// The emulator's wipe of every document.
        case deleteAll(@Sendable (Result<Int, HearthError>) -> Void)
        /// Documents stored as an export holds them, times included (`hearth import`); answers how many.
        case importDocuments([DocumentSnapshot], @Sendable (Result<Int, HearthError>) -> Void)
        /// One step of a background index build: the next chunk of documents after a `name_key`.
        case buildIndex(id: Int64, after: [UInt8], @Sendable (Result<[UInt8]?, HearthError>) -> Void)
        /// Declares an index a development-mode query needed (see `LearnedIndexes`); answers its new ID, which the
        /// catalog holds, building, before the completion runs.
        case learnIndex(IndexDefinition, @Sendable (Result<Int64, HearthError>) -> Void)
        /// A tree write (`TreeCommitter.write`); its change reaches the tree feed before the completion runs.
        case tree(TreeWrite, @Sendable (Result<TreeWriteOutcome, HearthError>) -> Void)
        /// An account write (`SQLiteDatabase.writeAndWait`): its body runs in its own savepoint, and what it throws
        /// rolls the savepoint back and reaches the completion unchanged. It feeds no change log and is not counted.
        case accounts(
            @Sendable (SQLiteConnection) throws -> Void, @Sendable (Result<Void, any Error>) -> Void)
        /// Brings a component's schema up to date (the accounts'); it runs alone between two group commits, since
        /// each migration step is a transaction of its own.
        case migrate(
            component: String, migrations: [(version: Int, sql: String)],
            @Sendable (Result<Void, any Error>) -> Void)
    }

    /// Where the writer publishes what each group committed, in commit order.
    struct Feeds: Sendable {
        /// Committed document changes.
        var documents: ChangeFeed<ChangeRecord>
        /// Committed tree changes.
        var tree: ChangeFeed<TreeChange>
    }
}

extension CommitWriter.Job {
    /// Whether the job only deletes, so a full disk still lets it through (see `DiskReserve`): a commit of deletes,
    /// a wipe, and a tree write that only removes data.
    var freesSpace: Bool {
        switch self {
        case .commit(let commit, _): commit.writes.allSatisfy { $0.operation == .delete && $0.transforms.isEmpty }
        case .deleteAll: true
        case .importDocuments, .buildIndex, .learnIndex, .accounts, .migrate: false
        case .tree(let write, _): write.onlyDeletes
        }
    }

    /// Answers the job with a failure (it runs once: a group that failed acknowledged none of its jobs).
    func fail(_ error: HearthError) {
        switch self {
        case .commit(_, let completion): completion(.failure(error))
        case .deleteAll(let completion): completion(.failure(error))
        case .importDocuments(_, let completion): completion(.failure(error))
        case .buildIndex(_, _, let completion): completion(.failure(error))
        case .learnIndex(_, let completion): completion(.failure(error))
        case .tree(_, let completion): completion(.failure(error))
        case .accounts(_, let completion): completion(.failure(error))
        case .migrate(_, _, let completion): completion(.failure(error))
        }
    }
}
