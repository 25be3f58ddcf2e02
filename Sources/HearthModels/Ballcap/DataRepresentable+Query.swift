public import Hearth

/// Ballcap's query builders on the element type: `Task.order(by: "createdAt").limit(to: 30).dataSource()`.
extension DataRepresentable where Self: Object {
    /// A query over the type's whole collection.
    public static var query: DataSource<Self>.Query { DataSource.Query(collectionReference) }

    /// The type's documents whose `field` matches (`whereField(_:isEqualTo:)`).
    public static func `where`(_ field: String, isEqualTo value: Any) -> DataSource<Self>.Query {
        query.where(field, isEqualTo: value)
    }

    /// The type's documents whose `field` matches (`whereField(_:isNotEqualTo:)`).
    public static func `where`(_ field: String, isNotEqualTo value: Any) -> DataSource<Self>.Query {
        query.where(field, isNotEqualTo: value)
    }

    /// The type's documents whose `field` matches (`whereField(_:isLessThan:)`).
    public static func `where`(_ field: String, isLessThan value: Any) -> DataSource<Self>.Query {
        query.where(field, isLessThan: value)
    }

    /// The type's documents whose `field` matches (`whereField(_:isLessThanOrEqualTo:)`).
    public static func `where`(_ field: String, isLessThanOrEqualTo value: Any) -> DataSource<Self>.Query {
        query.where(field, isLessThanOrEqualTo: value)
    }

    /// The type's documents whose `field` matches (`whereField(_:isGreaterThan:)`).
    public static func `where`(_ field: String, isGreaterThan value: Any) -> DataSource<Self>.Query {
        query.where(field, isGreaterThan: value)
    }

    /// The type's documents whose `field` matches (`whereField(_:isGreaterThanOrEqualTo:)`).
    public static func `where`(_ field: String, isGreaterThanOrEqualTo value: Any) -> DataSource<Self>.Query {
        query.where(field, isGreaterThanOrEqualTo: value)
    }

    /// The type's documents whose `field` matches (`whereField(_:arrayContains:)`).
    public static func `where`(_ field: String, arrayContains value: Any) -> DataSource<Self>.Query {
        query.where(field, arrayContains: value)
    }

    /// The type's documents whose `field` matches (`whereField(_:arrayContainsAny:)`).
    public static func `where`(_ field: String, arrayContainsAny value: [Any]) -> DataSource<Self>.Query {
        query.where(field, arrayContainsAny: value)
    }

    /// The type's documents whose `field` matches (`whereField(_:in:)`).
    public static func `where`(_ field: String, `in` value: [Any]) -> DataSource<Self>.Query {
        query.where(field, in: value)
    }

    /// The type's documents whose `field` matches (`whereField(_:notIn:)`).
    public static func `where`(_ field: String, notIn value: [Any]) -> DataSource<Self>.Query {
        query.where(field, notIn: value)
    }

    /// Orders by `field`, ascending.
    public static func order(by field: String) -> DataSource<Self>.Query { query.order(by: field) }

    /// Orders by `field`.
    public static func order(by field: String, descending: Bool) -> DataSource<Self>.Query {
        query.order(by: field, descending: descending)
    }

    /// At most `count` documents.
    public static func limit(to count: Int) -> DataSource<Self>.Query { query.limit(to: count) }

    /// At most `count` documents (``limit(to:)``).
    public static func limit(_ count: Int) -> DataSource<Self>.Query { query.limit(to: count) }

    /// Starts at the documents whose ordered fields equal `values`.
    public static func start(at values: [Any]) -> DataSource<Self>.Query { query.start(at: values) }

    /// Starts after the documents whose ordered fields equal `values`.
    public static func start(after values: [Any]) -> DataSource<Self>.Query { query.start(after: values) }

    /// Starts at `document`.
    public static func start(atDocument document: DocumentSnapshot) -> DataSource<Self>.Query {
        query.start(atDocument: document)
    }

    /// Starts after `document`.
    public static func start(afterDocument document: DocumentSnapshot) -> DataSource<Self>.Query {
        query.start(afterDocument: document)
    }

    /// Ends at the documents whose ordered fields equal `values`.
    public static func end(at values: [Any]) -> DataSource<Self>.Query { query.end(at: values) }

    /// Ends before the documents whose ordered fields equal `values`.
    public static func end(before values: [Any]) -> DataSource<Self>.Query { query.end(before: values) }

    /// Ends at `document`.
    public static func end(atDocument document: DocumentSnapshot) -> DataSource<Self>.Query {
        query.end(atDocument: document)
    }

    /// Ends before `document`.
    public static func end(beforeDocument document: DocumentSnapshot) -> DataSource<Self>.Query {
        query.end(beforeDocument: document)
    }
}
