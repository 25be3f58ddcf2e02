public import Hearth

/// An ``Object`` that follows its document — Ballcap's `DataListenable`: ``listen(includeMetadataChanges:completion:)``
/// keeps ``DataRepresentable/data`` current (and, on platforms with Combine, publishes each change to SwiftUI)
/// until ``stopListening()``.
@MainActor
public protocol DataListenable: AnyObject {
    /// The running listener, `nil` when not listening.
    var listener: (any ListenerRegistration)? { get set }
}

extension DataListenable where Self: DataRepresentable, Self: Object {
    /// Starts following the document (a second call while listening does nothing): every snapshot updates the
    /// object, then `completion` runs on the main actor with it, `nil` when the document does not exist, or the error.
    @discardableResult
    public func listen(
        includeMetadataChanges: Bool = true, completion: ((Self?, (any Error)?) -> Void)? = nil
    )
        -> Self
    {
        guard listener == nil else { return self }
        let completion = MainActorBound(completion)
        listener = documentReference.addSnapshotListener(includeMetadataChanges: includeMetadataChanges) {
            [weak self] snapshot, error in
            MainQueue.run(snapshot, error) { snapshot, error in
                guard let self else { return }
                guard let snapshot else {
                    completion.value?(nil, error)
                    return
                }
                guard snapshot.exists else {
                    completion.value?(nil, nil)
                    return
                }
                do {
                    try self.apply(snapshot)
                    completion.value?(self, nil)
                } catch {
                    completion.value?(nil, error)
                }
            }
        }
        return self
    }

    /// Stops following the document.
    public func stopListening() {
        listener?.remove()
        listener = nil
    }
}
