import HearthCore
import HearthStore

/// A stored document with its fields decoded, as query views compare and order it.
struct MatchedDocument: Sendable, Equatable {
    let document: StoredDocument
    let fields: [String: Value]

    var path: ResourcePath { document.path }

    /// Decodes a stored document; `nil` when its stored JSON is unreadable (such a document matches nothing).
    init?(_ document: StoredDocument) {
        guard let fields = try? document.fields() else { return nil }
        self.document = document
        self.fields = fields
    }

    init(document: StoredDocument, fields: [String: Value]) {
        self.document = document
        self.fields = fields
    }

    /// Orders two documents by a normalized query's orderings (a total order: `__name__` comes last).
    static func compare(_ a: MatchedDocument, _ b: MatchedDocument, _ orderBy: [QueryOrder]) -> Int {
        QueryMatcher.compare((a.path, a.fields), (b.path, b.fields), orderBy: orderBy)
    }
}

/// A visible document's identity and version, to tell what a change did to a window.
struct VisibleEntry: Sendable, Equatable {
    let path: ResourcePath
    let updateTime: Timestamp
}
