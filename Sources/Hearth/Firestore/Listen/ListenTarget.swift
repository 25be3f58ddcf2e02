import HearthCore

/// What a listener watches.
enum ListenKind: Sendable {
    case document(ResourcePath)
    /// `query` is what goes on the wire (reversed for `limit(toLast:)`); `reverse` flips results back.
    case query(StructuredQuery, reverse: Bool)
}

/// A snapshot (or failure) for one target, as the connection hands it to its listener.
enum ListenEvent: Sendable {
    /// The results in order, how they changed, which of them hold unacknowledged local writes, and whether the server
    /// has not confirmed them (no live, current stream).
    case documents([StoredDocument], changes: [StoredChange], pending: Set<ResourcePath>, fromCache: Bool)
    case failed(FirestoreErrorCode)
}

/// A change between two consecutive results of a query target, with Firestore's index semantics.
struct StoredChange: Sendable {
    var type: DocumentChangeType
    var document: StoredDocument
    var oldIndex: Int?
    var newIndex: Int?
}

/// One target's server state and what its listener last saw.
///
/// The stream's messages are staged and become the target's `documents` only at a consistency marker, so a
/// snapshot raised in between (for a local write) never shows half of a server commit.
struct ListenTarget {
    let kind: ListenKind
    let includeMetadataChanges: Bool
    let deliver: @Sendable (ListenEvent) -> Void
    /// The server's results as of the last marker; meaningful once `synced`.
    var documents: [ResourcePath: StoredDocument] = [:]
    /// Changes since the last marker (`nil` value: the document left).
    var staged: [ResourcePath: StoredDocument?] = [:]
    /// A `RESET` arrived since the last marker: drop `documents` before applying `staged`.
    var reset = false
    /// The server sent `CURRENT` for this stream and a marker followed: the results are the server's.
    var current = false
    var pendingCurrent = false
    /// The target has been current at least once, so `documents` (not the cache) is its base.
    var synced = false
    var resumeToken: String?
    /// Something that can change the view happened since the last raise.
    var dirty = true
    /// A marker changed a document the commit in flight writes: whether the server's copy holds that commit is only
    /// known from its answer, so the target waits for it rather than show the commit twice (an increment, say).
    var awaitingAnswer = false
    var emitted: (documents: [StoredDocument], pending: Set<ResourcePath>, fromCache: Bool)?

    init(kind: ListenKind, includeMetadataChanges: Bool, deliver: @escaping @Sendable (ListenEvent) -> Void) {
        self.kind = kind
        self.includeMetadataChanges = includeMetadataChanges
        self.deliver = deliver
    }

    /// Applies what was staged since the last marker.
    mutating func commitStaged() {
        if reset { documents = [:] }
        for (path, document) in staged { documents[path] = document }
        if reset || !staged.isEmpty { dirty = true }
        reset = false
        staged = [:]
        if pendingCurrent {
            pendingCurrent = false
            current = true
            synced = true
            dirty = true
        }
    }

    /// The stream is gone: what was staged is replayed after the resume, and the results are no longer confirmed.
    mutating func disconnect() {
        staged = [:]
        reset = false
        pendingCurrent = false
        if current { dirty = true }
        current = false
    }

    /// The snapshot for `view`, or `nil` when the listener has nothing new to see: Firebase raises a snapshot when
    /// documents changed, and one that only changes metadata (`hasPendingWrites`, `isFromCache`) only with
    /// `includeMetadataChanges`.
    mutating func raise(_ view: [StoredDocument], pending: Set<ResourcePath>, fromCache: Bool) -> ListenEvent? {
        dirty = false
        let previous = emitted
        let oldPending = previous?.pending ?? []
        let metadataOnly = includeMetadataChanges
        let changes = Self.changes(from: previous?.documents ?? [], to: view) { old, new in
            old.fields == new.fields
                && (!metadataOnly || oldPending.contains(old.path) == pending.contains(new.path))
        }
        if let previous {
            let metadataChanged = previous.fromCache != fromCache || previous.pending != pending
            if changes.isEmpty && !(includeMetadataChanges && metadataChanged) { return nil }
        }
        emitted = (view, pending, fromCache)
        return .documents(view, changes: changes, pending: pending, fromCache: fromCache)
    }

    /// Firestore's index semantics: each change's `oldIndex` is the document's position with all earlier changes
    /// applied, and `newIndex` its position once this change is applied too. Removals come first, then additions and
    /// modifications in new order; documents that only shift because others moved report nothing. `same` says
    /// whether a document kept in the results is unchanged.
    static func changes(
        from old: [StoredDocument], to new: [StoredDocument],
        same: (StoredDocument, StoredDocument) -> Bool = { $0.fields == $1.fields }
    ) -> [StoredChange] {
        var newIndex: [ResourcePath: Int] = [:]
        for (index, document) in new.enumerated() { newIndex[document.path] = index }
        let oldByPath = Dictionary(old.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        var working = old.map(\.path)
        var changes: [StoredChange] = []
        for document in old where newIndex[document.path] == nil {
            if let index = working.firstIndex(of: document.path) {
                working.remove(at: index)
                changes.append(StoredChange(type: .removed, document: document, oldIndex: index, newIndex: nil))
            }
        }
        for (index, document) in new.enumerated() {
            let previous = oldByPath[document.path]
            if let previous, same(previous, document) { continue }
            var oldIndex: Int?
            if previous != nil, let position = working.firstIndex(of: document.path) {
                working.remove(at: position)
                oldIndex = position
            }
            let insertAt = working.filter { (newIndex[$0] ?? 0) < index }.count
            working.insert(document.path, at: insertAt)
            changes.append(
                StoredChange(
                    type: previous == nil ? .added : .modified, document: document, oldIndex: oldIndex,
                    newIndex: insertAt))
        }
        return changes
    }
}
