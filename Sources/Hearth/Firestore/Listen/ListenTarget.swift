import HearthCore

/// What a listener watches.
enum ListenKind: Sendable {
    case document(ResourcePath)
    /// `query` is what goes on the wire (reversed for `limit(toLast:)`); `reverse` flips results back.
    case query(StructuredQuery, reverse: Bool)
}

/// A snapshot (or failure) for one target, as the connection hands it to its listener.
enum ListenEvent: Sendable {
    case documents([StoredDocument], changes: [StoredChange])
    case failed(FirestoreErrorCode)
}

/// A change between two consecutive results of a query target, with Firestore's index semantics.
struct StoredChange: Sendable {
    var type: DocumentChangeType
    var document: StoredDocument
    var oldIndex: Int?
    var newIndex: Int?
}

/// One target's local copy of its results, fed by `documentChange`/`documentDelete`/`documentRemove` and raised to
/// the listener at consistency markers.
struct ListenTarget {
    let kind: ListenKind
    let deliver: @Sendable (ListenEvent) -> Void
    var documents: [ResourcePath: StoredDocument] = [:]
    var current = false
    var dirty = true
    var resumeToken: String?
    var emitted: [StoredDocument]?

    /// The ordered results now, or `nil` when nothing changed since the last raise.
    mutating func raise() -> ListenEvent? {
        guard current, dirty || emitted == nil else { return nil }
        dirty = false
        var list: [StoredDocument]
        switch kind {
        case .document(let path):
            list = documents[path].map { [$0] } ?? []
        case .query(let query, let reverse):
            let order = query.normalizedOrderBy
            list = documents.values.sorted {
                QueryMatcher.compare(($0.path, $0.fields), ($1.path, $1.fields), orderBy: order) < 0
            }
            if reverse { list.reverse() }
        }
        let changes = Self.changes(from: emitted ?? [], to: list)
        if emitted != nil && changes.isEmpty { return nil }
        emitted = list
        return .documents(list, changes: changes)
    }

    /// Firestore's index semantics: each change's `oldIndex` is the document's position with all earlier changes
    /// applied, and `newIndex` its position once this change is applied too. Removals come first, then additions and
    /// modifications in new order; documents that only shift because others moved report nothing.
    static func changes(from old: [StoredDocument], to new: [StoredDocument]) -> [StoredChange] {
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
            if previous == document { continue }
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
