import HearthCore
import Synchronization

/// Writes applied atomically in one commit — Hearth's `WriteBatch`. Up to 500 writes.
public final class WriteBatch: Sendable {
    private let firestore: Firestore
    private let writes = Mutex<Result<[Write], FirestoreErrorCode>>(.success([]))

    init(_ firestore: Firestore) { self.firestore = firestore }

    private func add(_ build: () throws(FirestoreErrorCode) -> Write) -> WriteBatch {
        writes.withLock { state in
            guard case .success(var list) = state else { return }
            do throws(FirestoreErrorCode) {
                list.append(try build())
                state = .success(list)
            } catch {
                state = .failure(error)
            }
        }
        return self
    }

    /// Replaces (or creates) a document.
    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference) -> WriteBatch {
        add { () throws(FirestoreErrorCode) in try WriteBuilder.set(document.resourcePath, data) }
    }

    /// Writes a document, merging when `merge` is set.
    @discardableResult
    public func setData(_ data: [String: Any], forDocument document: DocumentReference, merge: Bool) -> WriteBatch {
        add { () throws(FirestoreErrorCode) in
            merge
                ? try WriteBuilder.merge(document.resourcePath, data)
                : try WriteBuilder.set(document.resourcePath, data)
        }
    }

    /// Writes only `mergeFields` of a document.
    @discardableResult
    public func setData(
        _ data: [String: Any], forDocument document: DocumentReference, mergeFields: [Any]
    ) -> WriteBatch {
        add { () throws(FirestoreErrorCode) in try WriteBuilder.merge(document.resourcePath, data, fields: mergeFields)
        }
    }

    /// Updates fields of an existing document; the whole batch fails with `notFound` otherwise.
    @discardableResult
    public func updateData(_ fields: [AnyHashable: Any], forDocument document: DocumentReference) -> WriteBatch {
        add { () throws(FirestoreErrorCode) in try WriteBuilder.update(document.resourcePath, fields) }
    }

    /// Deletes a document.
    @discardableResult
    public func deleteDocument(_ document: DocumentReference) -> WriteBatch {
        add { Write(path: document.resourcePath, operation: .delete) }
    }

    /// Commits every write atomically; resumes when the server has acknowledged them.
    public func commit() async throws {
        let list = try writes.withLock { $0 }.get()
        guard !list.isEmpty else { return }
        try await firestore.commit(list)
    }

    /// Completion-handler form of ``commit()``: the writes are queued, in call order, when this returns; `completion`
    /// runs when the server acknowledged them.
    public func commit(completion: (((any Error)?) -> Void)? = nil) {
        let completion = callbackQueueBound(completion)
        let list: [Write]
        switch writes.withLock({ $0 }) {
        case .failure(let error):
            firestore.callbacks.async { completion?(error) }
            return
        case .success(let writes): list = writes
        }
        guard !list.isEmpty else {
            firestore.callbacks.async { completion?(nil) }
            return
        }
        let queue = firestore.writeQueue
        do {
            let id = try queue.enqueue(list)
            firestore.callbacks.completeVoid(completion) { try await queue.wait(for: id) }
        } catch {
            firestore.callbacks.async { completion?(error) }
        }
    }

    /// The writes so far, for transactions.
    var pendingWrites: Result<[Write], FirestoreErrorCode> { writes.withLock { $0 } }
}
