import Testing

@testable import HearthCore

/// Shared fixtures for the query tests: one database, references, paths and decoding helpers.
enum QueryFixture {
    static let database = DatabaseName(project: "demo")

    /// A reference to a document of the test database.
    static func ref(_ path: String) -> Value { .reference(database.documentsRoot + "/" + path) }

    /// A relative path (`users/alice`).
    static func path(_ text: String) -> ResourcePath {
        ResourcePath(segments: text.isEmpty ? [] : text.split(separator: "/").map(String.init))
    }

    /// A field path parsed from its dotted text.
    static func field(_ text: String) -> FieldPath {
        do { return try FieldPath(parsing: text) } catch { fatalError("bad field path in a test: \(text)") }
    }

    /// Decodes a structured query from JSON text.
    static func decode(_ json: String, parent: String = "") throws -> StructuredQuery {
        try StructuredQuery(
            firestoreJSON: try JSONParser.parse(json), at: "structuredQuery", database: database, parent: path(parent))
    }

    /// Decodes an aggregation query from JSON text.
    static func decodeAggregation(_ json: String, parent: String = "") throws -> AggregationQuery {
        try AggregationQuery(
            firestoreJSON: try JSONParser.parse(json), at: "structuredAggregationQuery", database: database,
            parent: path(parent))
    }

    /// The error decoding gives, or `nil` when it succeeds.
    static func decodeError(_ json: String, parent: String = "") -> HearthError? {
        do {
            _ = try decode(json, parent: parent)
            return nil
        } catch let error as HearthError {
            return error
        } catch {
            return HearthError(.unknown, "not a HearthError: \(error)")
        }
    }

    /// A `fieldFilter` JSON object.
    static func fieldFilter(_ path: String, _ op: String, _ value: String) -> String {
        #"{"fieldFilter":{"field":{"fieldPath":"\#(path)"},"op":"\#(op)","value":\#(value)}}"#
    }

    /// A query over collection `c` with the given extra members (JSON text without braces).
    static func query(_ members: String = "") -> String {
        members.isEmpty ? #"{"from":[{"collectionId":"c"}]}"# : #"{"from":[{"collectionId":"c"}],\#(members)}"#
    }

    /// Field filter shorthand for Swift-built filters.
    static func filter(_ path: String, _ op: FieldOperator, _ value: Value) -> QueryFilter {
        .field(field(path), op, value)
    }
}

/// Same-type, NaN-aware equality for expected results (`Value ==` treats NaN as unequal to itself and `1 == 1.0`
/// as equal under `isEquivalent`; tests need both the type and the value).
func sameValue(_ a: Value?, _ b: Value?) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case (.double(let x)?, .double(let y)?): return x.isNaN ? y.isNaN : (x == y && x.sign == y.sign)
    case (let x?, let y?): return x == y
    default: return false
    }
}
