public import Foundation
import HearthCore

/// An aggregation to compute over a query's results — Hearth's `AggregateField`.
public struct AggregateField: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case count
        case sum(HearthCore.FieldPath)
        case average(HearthCore.FieldPath)
    }

    let kind: Kind

    /// The number of matching documents.
    public static func count() -> AggregateField { AggregateField(kind: .count) }
    /// The sum of a numeric field over matching documents.
    public static func sum(_ field: String) -> AggregateField {
        AggregateField(kind: .sum((try? FieldPath.parse(field).core) ?? HearthCore.FieldPath(segments: [field])))
    }
    /// The sum of a numeric field, by ``FieldPath``.
    public static func sum(_ path: FieldPath) -> AggregateField { AggregateField(kind: .sum(path.core)) }
    /// The average of a numeric field over matching documents (`NSNull` when none has one).
    public static func average(_ field: String) -> AggregateField {
        AggregateField(kind: .average((try? FieldPath.parse(field).core) ?? HearthCore.FieldPath(segments: [field])))
    }
    /// The average of a numeric field, by ``FieldPath``.
    public static func average(_ path: FieldPath) -> AggregateField { AggregateField(kind: .average(path.core)) }

    var json: JSONValue {
        switch kind {
        case .count: ["count": .object([:])]
        case .sum(let path): ["sum": ["field": ["fieldPath": .string(path.description)]]]
        case .average(let path): ["avg": ["field": ["fieldPath": .string(path.description)]]]
        }
    }
}

/// Where an aggregation runs; only on the server.
public enum AggregateSource: Sendable, Hashable {
    /// On the server, which reads the index without sending documents.
    case server
}

/// Aggregations over a query — Hearth's `AggregateQuery`.
public final class AggregateQuery: Sendable {
    /// The query aggregated.
    public let query: Query
    let fields: [AggregateField]

    init(query: Query, fields: [AggregateField]) {
        self.query = query
        self.fields = fields
    }

    /// Runs the aggregation.
    public func getAggregation(source: AggregateSource = .server) async throws -> AggregateQuerySnapshot {
        let structured = try query.state.wireQuery()
        let firestore = query.firestore
        let aggregations: [JSONValue] = fields.enumerated().map { index, field in
            guard case .object(var members) = field.json else { return field.json }
            members["alias"] = .string("field_\(index)")
            return .object(members)
        }
        let body: JSONValue = [
            "structuredAggregationQuery": [
                "structuredQuery": structured.firestoreJSON(database: firestore.database),
                "aggregations": .array(aggregations),
            ]
        ]
        let json = try await firestore.client.send(
            "POST", path: structured.parent, suffix: ":runAggregationQuery", body: body)
        var results: [AggregateField: Value] = [:]
        let members = json[0]?["result"]?["aggregateFields"]
        for (index, field) in fields.enumerated() {
            if let raw = members?["field_\(index)"] { results[field] = try? Value(firestoreJSON: raw, at: "result") }
        }
        return AggregateQuerySnapshot(query: self, results: results)
    }

    /// Completion-handler form of ``getAggregation(source:)``.
    public func getAggregation(
        source: AggregateSource = .server,
        completion: @escaping (AggregateQuerySnapshot?, (any Error)?) -> Void
    ) {
        query.firestore.callbacks.complete(callbackQueueBound(completion)) {
            try await self.getAggregation(source: source)
        }
    }
}

/// The results of an ``AggregateQuery`` — Hearth's `AggregateQuerySnapshot`.
public final class AggregateQuerySnapshot: Sendable {
    /// The aggregation that produced it.
    public let query: AggregateQuery
    let results: [AggregateField: Value]

    init(query: AggregateQuery, results: [AggregateField: Value]) {
        self.query = query
        self.results = results
    }

    /// The document count (for queries built with `count` or including ``AggregateField/count()``).
    public var count: NSNumber {
        if case .integer(let number)? = results[.count()] { return NSNumber(value: number) }
        return NSNumber(value: 0)
    }

    /// One result: an `NSNumber` for counts, sums and averages, or `NSNull` for an average over nothing.
    public func get(_ field: AggregateField) -> Any? {
        switch results[field] {
        case .integer(let number)?: return NSNumber(value: number)
        case .double(let number)?: return NSNumber(value: number)
        case .null?: return NSNull()
        default: return nil
        }
    }
}

extension Query {
    /// Counts the matching documents on the server.
    public var count: AggregateQuery { AggregateQuery(query: self, fields: [.count()]) }

    /// Computes up to five aggregations over the matching documents.
    public func aggregate(_ fields: [AggregateField]) -> AggregateQuery { AggregateQuery(query: self, fields: fields) }
}
