public import Hearth

extension DataSource {
    /// A query over the element type's documents that builds a ``DataSource`` — Ballcap's `DataSource.Query`:
    /// `Task.where("isCompleted", isEqualTo: false).order(by: "createdAt").limit(to: 30).dataSource()`.
    public final class Query: Sendable {
        /// The SDK query.
        public let query: Hearth.Query

        /// A query over `query`'s documents.
        public init(_ query: Hearth.Query) { self.query = query }

        /// A data source over this query.
        @MainActor
        public func dataSource(option: Option = Option()) -> DataSource<T> {
            DataSource(reference: self, option: option)
        }

        /// Calls `listener` with the results now and after every change (the SDK's `addSnapshotListener`).
        @discardableResult
        public func listen(
            includeMetadataChanges: Bool = true,
            listener: @escaping (QuerySnapshot?, (any Error)?) -> Void
        ) -> any ListenerRegistration {
            query.addSnapshotListener(includeMetadataChanges: includeMetadataChanges, listener)
        }

        /// Reads the results once (the SDK's `getDocuments`).
        public func get(completion: @escaping (QuerySnapshot?, (any Error)?) -> Void) {
            query.getDocuments(completion: completion)
        }

        /// Keeps the documents whose `field` matches (`whereField(_:isEqualTo:)`).
        public func `where`(_ field: String, isEqualTo value: Any) -> Query {
            Query(query.whereField(field, isEqualTo: value))
        }

        /// Keeps the documents whose `field` matches (`whereField(_:isNotEqualTo:)`).
        public func `where`(_ field: String, isNotEqualTo value: Any) -> Query {
            Query(query.whereField(field, isNotEqualTo: value))
        }

        /// Keeps the documents whose `field` matches (`whereField(_:isLessThan:)`).
        public func `where`(_ field: String, isLessThan value: Any) -> Query {
            Query(query.whereField(field, isLessThan: value))
        }

        /// Keeps the documents whose `field` matches (`whereField(_:isLessThanOrEqualTo:)`).
        public func `where`(_ field: String, isLessThanOrEqualTo value: Any) -> Query {
            Query(query.whereField(field, isLessThanOrEqualTo: value))
        }

        /// Keeps the documents whose `field` matches (`whereField(_:isGreaterThan:)`).
        public func `where`(_ field: String, isGreaterThan value: Any) -> Query {
            Query(query.whereField(field, isGreaterThan: value))
        }

        /// Keeps the documents whose `field` matches (`whereField(_:isGreaterThanOrEqualTo:)`).
        public func `where`(_ field: String, isGreaterThanOrEqualTo value: Any) -> Query {
            Query(query.whereField(field, isGreaterThanOrEqualTo: value))
        }

        /// Keeps the documents whose `field` matches (`whereField(_:arrayContains:)`).
        public func `where`(_ field: String, arrayContains value: Any) -> Query {
            Query(query.whereField(field, arrayContains: value))
        }

        /// Keeps the documents whose `field` matches (`whereField(_:arrayContainsAny:)`).
        public func `where`(_ field: String, arrayContainsAny value: [Any]) -> Query {
            Query(query.whereField(field, arrayContainsAny: value))
        }

        /// Keeps the documents whose `field` matches (`whereField(_:in:)`).
        public func `where`(_ field: String, `in` value: [Any]) -> Query { Query(query.whereField(field, in: value)) }

        /// Keeps the documents whose `field` matches (`whereField(_:notIn:)`).
        public func `where`(_ field: String, notIn value: [Any]) -> Query {
            Query(query.whereField(field, notIn: value))
        }

        /// Orders by `field`, ascending.
        public func order(by field: String) -> Query { Query(query.order(by: field)) }

        /// Orders by `field`.
        public func order(by field: String, descending: Bool) -> Query {
            Query(query.order(by: field, descending: descending))
        }

        /// At most `count` documents.
        public func limit(to count: Int) -> Query { Query(query.limit(to: count)) }

        /// At most `count` documents (``limit(to:)``).
        public func limit(_ count: Int) -> Query { Query(query.limit(to: count)) }

        /// Starts at the documents whose ordered fields equal `values`.
        public func start(at values: [Any]) -> Query { Query(query.start(at: values)) }

        /// Starts after the documents whose ordered fields equal `values`.
        public func start(after values: [Any]) -> Query { Query(query.start(after: values)) }

        /// Starts at `document`.
        public func start(atDocument document: DocumentSnapshot) -> Query { Query(query.start(atDocument: document)) }

        /// Starts after `document`.
        public func start(afterDocument document: DocumentSnapshot) -> Query {
            Query(query.start(afterDocument: document))
        }

        /// Ends at the documents whose ordered fields equal `values`.
        public func end(at values: [Any]) -> Query { Query(query.end(at: values)) }

        /// Ends before the documents whose ordered fields equal `values`.
        public func end(before values: [Any]) -> Query { Query(query.end(before: values)) }

        /// Ends at `document`.
        public func end(atDocument document: DocumentSnapshot) -> Query { Query(query.end(atDocument: document)) }

        /// Ends before `document`.
        public func end(beforeDocument document: DocumentSnapshot) -> Query {
            Query(query.end(beforeDocument: document))
        }
    }
}
