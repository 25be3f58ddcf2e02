import Foundation
import HearthCore
import Synchronization

/// Stops a snapshot listener — Hearth's `ListenerRegistration`. As in Firebase, the listener lives until
/// ``remove()``, whether or not the registration is kept: an app that never stops a listener may drop it.
public protocol ListenerRegistration: AnyObject, Sendable {
    /// Removes the listener; no callback follows.
    func remove()
}

/// How a document entered, changed in or left a query's results — Hearth's `DocumentChangeType`.
public enum DocumentChangeType: Int, Sendable, Hashable {
    /// The document entered the results.
    case added
    /// The document changed (and may have moved).
    case modified
    /// The document left the results.
    case removed
}

/// One change between two query snapshots — Hearth's `DocumentChange`.
public struct DocumentChange: Sendable {
    /// What happened.
    public let type: DocumentChangeType
    /// The document (its last state for `.removed`).
    public let document: QueryDocumentSnapshot
    /// Its index in the previous snapshot (after earlier changes were applied), or `NSNotFound` for `.added`.
    public let oldIndex: UInt
    /// Its index in the new snapshot, or `NSNotFound` for `.removed`.
    public let newIndex: UInt
}

/// A listener's target on the connection, removable before the connection has even assigned its ID.
final class TargetRegistration: ListenerRegistration {
    private let connection: ListenConnection
    private let state = Mutex<(id: Int?, removed: Bool)>((nil, false))

    init(connection: ListenConnection) { self.connection = connection }

    func attach(_ id: Int) {
        let removed = state.withLock { state in
            state.id = id
            return state.removed
        }
        if removed { Task { await connection.remove(id) } }
    }

    var isRemoved: Bool { state.withLock { $0.removed } }

    func remove() {
        let id = state.withLock { state in
            state.removed = true
            return state.id
        }
        if let id { Task { await connection.remove(id) } }
    }
}

extension Firestore {
    /// Adds a target whose events go to `deliver` on the callback queue (``settings``), one after another in the
    /// order the connection raised them, or — `onCallbackQueue: false`, for the `AsyncSequence` forms, which hop to
    /// their consumer anyway — on the connection's executor. A removed registration gets no further call, also of
    /// events already queued. The target holds the registration (strongly, as Firebase keeps a listener until
    /// `remove()`); `remove()` drops the target and with it that reference.
    func listen(
        _ kind: ListenKind, includeMetadataChanges: Bool, onCallbackQueue: Bool = true,
        deliver: @escaping @Sendable (ListenEvent) -> Void
    ) -> TargetRegistration {
        let registration = TargetRegistration(connection: listenConnection)
        let callbacks = onCallbackQueue ? self.callbacks : nil
        let guarded: @Sendable (ListenEvent) -> Void = { event in
            guard !registration.isRemoved else { return }
            guard let callbacks else { return deliver(event) }
            callbacks.async {
                guard !registration.isRemoved else { return }
                deliver(event)
            }
        }
        Task {
            let id = await listenConnection.add(
                kind, includeMetadataChanges: includeMetadataChanges, deliver: guarded)
            registration.attach(id)
        }
        return registration
    }
}

private let notFound = UInt(NSNotFound)

/// A listener's snapshots as an `AsyncSequence`: `register` adds the listener (called off the callback queue, so
/// steps are never reordered by a hop); an error ends the sequence, and ending the iteration removes the listener.
private func snapshotStream<Snapshot: Sendable>(
    _ register: (@escaping @Sendable (Snapshot?, (any Error)?) -> Void) -> any ListenerRegistration
) -> AsyncThrowingStream<Snapshot, any Error> {
    let (stream, continuation) = AsyncThrowingStream<Snapshot, any Error>.makeStream()
    let registration = register { snapshot, error in
        if let snapshot { continuation.yield(snapshot) } else { continuation.finish(throwing: error) }
    }
    continuation.onTermination = { _ in registration.remove() }
    return stream
}

extension DocumentReference {
    /// Calls `listener` with the document now and after every change, over the live `documents:listen` channel.
    ///
    /// A local write to the document calls it at once (`metadata.hasPendingWrites == true`); the server's
    /// acknowledgement calls it again only when the data differs or with `includeMetadataChanges`. While the server
    /// is unreachable, snapshots come from the local cache (`metadata.isFromCache == true`). Callbacks arrive on
    /// ``Firestore/settings``' `dispatchQueue` (the main queue by default), never inside the call that caused them.
    /// The listener stays until the registration's `remove()`, whether or not the registration is kept. A missing document is a snapshot with `exists == false`.
    @discardableResult
    public func addSnapshotListener(
        includeMetadataChanges: Bool = false,
        _ listener: @escaping (DocumentSnapshot?, (any Error)?) -> Void
    ) -> any ListenerRegistration {
        addSnapshotListener(
            includeMetadataChanges: includeMetadataChanges, onCallbackQueue: true, callbackQueueBound(listener))
    }

    func addSnapshotListener(
        includeMetadataChanges: Bool, onCallbackQueue: Bool,
        _ listener: @escaping @Sendable (DocumentSnapshot?, (any Error)?) -> Void
    ) -> any ListenerRegistration {
        firestore.listen(
            .document(resourcePath), includeMetadataChanges: includeMetadataChanges, onCallbackQueue: onCallbackQueue
        ) { event in
            switch event {
            case .documents(let documents, _, let pending, let fromCache):
                let metadata = SnapshotMetadata(hasPendingWrites: !pending.isEmpty, isFromCache: fromCache)
                listener(DocumentSnapshot(reference: self, stored: documents.first, metadata: metadata), nil)
            case .failed(let error):
                listener(nil, error)
            }
        }
    }

    /// The document's snapshots as an `AsyncSequence`; ending the iteration removes the listener.
    public func snapshots(includeMetadataChanges: Bool = false) -> AsyncThrowingStream<DocumentSnapshot, any Error> {
        snapshotStream {
            addSnapshotListener(includeMetadataChanges: includeMetadataChanges, onCallbackQueue: false, $0)
        }
    }

    /// ``snapshots(includeMetadataChanges:)`` without metadata changes.
    public var snapshots: AsyncThrowingStream<DocumentSnapshot, any Error> { snapshots() }
}

extension Query {
    /// Calls `listener` with the results now and after every change, with `documentChanges` describing each step.
    ///
    /// Local writes show at once (`metadata.hasPendingWrites == true`); the server's acknowledgement calls again only
    /// when the results differ or with `includeMetadataChanges` (then also when `isFromCache` flips). While the
    /// server is unreachable, results come from the local cache with the queued writes applied
    /// (`metadata.isFromCache == true`). Callbacks arrive on
    /// ``Firestore/settings``' `dispatchQueue` (the main queue by default), never inside the call that caused them.
    /// The listener stays until the registration's `remove()`, whether or not the registration is kept.
    @discardableResult
    public func addSnapshotListener(
        includeMetadataChanges: Bool = false,
        _ listener: @escaping (QuerySnapshot?, (any Error)?) -> Void
    ) -> any ListenerRegistration {
        addSnapshotListener(
            includeMetadataChanges: includeMetadataChanges, onCallbackQueue: true, callbackQueueBound(listener))
    }

    func addSnapshotListener(
        includeMetadataChanges: Bool, onCallbackQueue: Bool,
        _ listener: @escaping @Sendable (QuerySnapshot?, (any Error)?) -> Void
    ) -> any ListenerRegistration {
        let kind: ListenKind
        do throws(FirestoreErrorCode) {
            kind = .query(try state.wireQuery(), reverse: state.limitToLast)
        } catch {
            if onCallbackQueue { firestore.callbacks.async { listener(nil, error) } } else { listener(nil, error) }
            return TargetRegistration(connection: firestore.listenConnection)
        }
        let firestore = self.firestore
        return firestore.listen(kind, includeMetadataChanges: includeMetadataChanges, onCallbackQueue: onCallbackQueue)
        { event in
            switch event {
            case .documents(let documents, let changes, let pending, let fromCache):
                func snapshot(_ stored: StoredDocument) -> QueryDocumentSnapshot {
                    QueryDocumentSnapshot(
                        reference: DocumentReference(firestore, stored.path), stored: stored,
                        metadata: SnapshotMetadata(
                            hasPendingWrites: pending.contains(stored.path), isFromCache: fromCache))
                }
                let described = changes.map { change in
                    DocumentChange(
                        type: change.type, document: snapshot(change.document),
                        oldIndex: change.oldIndex.map(UInt.init) ?? notFound,
                        newIndex: change.newIndex.map(UInt.init) ?? notFound)
                }
                let metadata = SnapshotMetadata(hasPendingWrites: !pending.isEmpty, isFromCache: fromCache)
                listener(
                    QuerySnapshot(
                        query: self, documents: documents.map(snapshot), changes: described, metadata: metadata), nil)
            case .failed(let error):
                listener(nil, error)
            }
        }
    }

    /// The query's snapshots as an `AsyncSequence`; ending the iteration removes the listener.
    public func snapshots(includeMetadataChanges: Bool = false) -> AsyncThrowingStream<QuerySnapshot, any Error> {
        snapshotStream {
            addSnapshotListener(includeMetadataChanges: includeMetadataChanges, onCallbackQueue: false, $0)
        }
    }

    /// ``snapshots(includeMetadataChanges:)`` without metadata changes.
    public var snapshots: AsyncThrowingStream<QuerySnapshot, any Error> { snapshots() }
}
