import Foundation
import HearthCore
import Synchronization

/// The reads and writes of one attempt of a transaction — Hearth's `Transaction`.
///
/// As in Firebase, the update block is synchronous: ``getDocument(_:)`` blocks its thread until the server answers.
/// The SDK runs each attempt of the block on a thread of its own — never on Swift's cooperative pool or Dispatch's
/// width-limited global queues, which a blocked read could starve — and every read must come before the first write.
public final class Transaction: Sendable {
    private let firestore: Firestore
    let id: String
    private let batch: WriteBatch
    private let wrote = Atomic<Bool>(false)

    init(firestore: Firestore, id: String) {
        self.firestore = firestore
        self.id = id
        batch = WriteBatch(firestore)
    }

    /// Reads a document within the transaction; the commit fails with `aborted` (and the transaction retries) if it
    /// changes before then.
    /// - Throws: ``FirestoreErrorCode`` — `invalidArgument` after a write, `unavailable` when offline.
    public func getDocument(_ document: DocumentReference) throws -> DocumentSnapshot {
        if wrote.load(ordering: .relaxed) {
            throw FirestoreErrorCode(
                .invalidArgument, "Firestore transactions require all reads to be executed before all writes.")
        }
        let box = Mutex<Result<DocumentSnapshot, FirestoreErrorCode>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let id = self.id
        Task {
            do throws(FirestoreErrorCode) {
                let snapshot = try await document.read(transaction: id)
                box.withLock { $0 = .success(snapshot) }
            } catch {
                box.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try box.withLock { $0! }.get()
    }

    /// Replaces (or creates) a document when the transaction commits.
    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference) -> Transaction {
        wrote.store(true, ordering: .relaxed)
        batch.setData(data, forDocument: document)
        return self
    }

    /// Writes a document, merging when `merge` is set.
    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, merge: Bool) -> Transaction {
        wrote.store(true, ordering: .relaxed)
        batch.setData(data, forDocument: document, merge: merge)
        return self
    }

    /// Updates fields of an existing document.
    @discardableResult
    public func updateData(_ fields: [AnyHashable: Any], forDocument document: DocumentReference) -> Transaction {
        wrote.store(true, ordering: .relaxed)
        batch.updateData(fields, forDocument: document)
        return self
    }

    /// Deletes a document.
    @discardableResult
    public func deleteDocument(_ document: DocumentReference) -> Transaction {
        wrote.store(true, ordering: .relaxed)
        batch.deleteDocument(document)
        return self
    }

    var writes: Result<[Write], FirestoreErrorCode> { batch.pendingWrites }
}

/// Options for ``Firestore/runTransaction(with:_:)``.
public struct TransactionOptions: Sendable, Hashable {
    /// How many times to attempt the transaction before failing with the last `aborted` error (default 5).
    public var maxAttempts: Int

    /// Creates options.
    public init(maxAttempts: Int = 5) { self.maxAttempts = max(1, maxAttempts) }
}

/// Carries a value the update block returns across threads; the block hands it over and never touches it again.
private final class Handoff: @unchecked Sendable {
    var value: Any?
}

extension Firestore {
    /// Runs `updateBlock` in a read-write transaction, retrying on conflicts (`aborted`) up to
    /// ``TransactionOptions/maxAttempts`` times, and returns the block's value once the commit succeeded.
    ///
    /// Transactions need the server: while offline they fail at once with `unavailable` rather than being queued.
    /// - Throws: the block's error (the transaction is rolled back), or a ``FirestoreErrorCode``.
    public func runTransaction<T: Sendable>(
        with options: TransactionOptions = TransactionOptions(),
        _ updateBlock: @escaping @Sendable (Transaction) throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            let id = try await beginTransaction()
            let transaction = Transaction(firestore: self, id: id)
            let outcome: Result<T, any Error> = await withCheckedContinuation { continuation in
                // A dedicated thread: `getDocument` blocks it while its read runs on the cooperative pool.
                Thread { continuation.resume(returning: Result { try updateBlock(transaction) }) }.start()
            }
            let value: T
            let writes: [Write]
            do {
                value = try outcome.get()
                writes = try transaction.writes.get()
            } catch {
                _ = try? await client.send("POST", path: .root, suffix: ":rollback", body: ["transaction": .string(id)])
                throw error
            }
            let committed = await commitResult(writes, transaction: id)
            guard case .failure(let error) = committed else { return value }
            guard error.code == .aborted && attempt < options.maxAttempts else { throw error }
            // Another client changed what this attempt read: back off a little, with jitter, and run it again.
            let delay = UInt64(10 << min(attempt, 6)) + UInt64.random(in: 0..<20)
            try await Task.sleep(nanoseconds: delay * 1_000_000)
        }
    }

    private func commitResult(_ writes: [Write], transaction: String) async -> Result<Void, FirestoreErrorCode> {
        do throws(FirestoreErrorCode) {
            try await client.commit(writes, transaction: transaction)
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// Completion-handler form: the block returns a value or throws (the transaction is then rolled back).
    public func runTransaction(
        _ updateBlock: @escaping @Sendable (Transaction) throws -> Any?,
        completion: @escaping (Any?, (any Error)?) -> Void
    ) {
        let completion = callbackQueueBound(completion)
        let callbacks = self.callbacks
        Task {
            do {
                let handoff = try await self.runTransaction { transaction in
                    let handoff = Handoff()
                    handoff.value = try updateBlock(transaction)
                    return handoff
                }
                callbacks.async { completion(handoff.value, nil) }
            } catch {
                callbacks.async { completion(nil, error) }
            }
        }
    }

    #if canImport(ObjectiveC)
    /// Firebase's form: the block reports failure through `errorPointer`.
    public func runTransaction(
        _ updateBlock: @escaping @Sendable (Transaction, NSErrorPointer) -> Any?,
        completion: @escaping (Any?, (any Error)?) -> Void
    ) {
        runTransaction(
            { (transaction: Transaction) throws -> Any? in
                var error: NSError?
                let value = updateBlock(transaction, &error)
                if let error { throw error }
                return value
            }, completion: completion)
    }
    #endif

    /// Starts a read-write transaction on the server.
    private func beginTransaction() async throws(FirestoreErrorCode) -> String {
        let json: JSONValue
        do {
            json = try await client.send("POST", path: .root, suffix: ":beginTransaction", body: .object([:]))
        } catch  where error.code == .unavailable {
            throw FirestoreErrorCode(
                .unavailable,
                "Transactions need a connection to the server, and the client is offline. \(error.message)")
        }
        guard let id = json["transaction"]?.stringValue else {
            throw FirestoreErrorCode(.internal, "beginTransaction answered without a transaction ID.")
        }
        return id
    }
}
