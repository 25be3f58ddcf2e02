/// A Firestore `StructuredAggregationQuery`: aggregations (count, sum, average) over a structured query's
/// results.
public struct AggregationQuery: Sendable, Equatable {
    /// What one aggregation computes.
    public enum Kind: Sendable, Equatable {
        /// `count`, optionally stopping at `upTo` (> 0).
        case count(upTo: Int64?)
        /// `sum` of a field's numeric values.
        case sum(FieldPath)
        /// `avg` of a field's numeric values.
        case average(FieldPath)
    }

    /// One aggregation and the alias its result is returned under.
    public struct Aggregation: Sendable, Equatable {
        /// The name of the result in `aggregateFields`.
        public var alias: String
        /// What it computes.
        public var kind: Kind

        /// Creates an aggregation.
        public init(alias: String, kind: Kind) {
            self.alias = alias
            self.kind = kind
        }
    }

    /// The most aggregations one request may hold.
    public static let maxAggregations = 5

    /// The query whose results are aggregated.
    public var query: StructuredQuery
    /// The aggregations, in request order.
    public var aggregations: [Aggregation]

    /// The fields every aggregated document must have. Production computes `sum` and `avg` through the field's
    /// index, so only documents holding every such field (of any type) take part — in every aggregation of the
    /// request, `count` too — and the query's offset and limit apply after that restriction.
    public var aggregatedFields: [FieldPath] {
        var fields: [FieldPath] = []
        for aggregation in aggregations {
            switch aggregation.kind {
            case .count: continue
            case .sum(let field), .average(let field): if !fields.contains(field) { fields.append(field) }
            }
        }
        return fields
    }

    /// Creates an aggregation query.
    public init(query: StructuredQuery, aggregations: [Aggregation]) {
        self.query = query
        self.aggregations = aggregations
    }

    /// Decodes the value of a `:runAggregationQuery` body's `structuredAggregationQuery` member — that is
    /// `{"structuredQuery": …, "aggregations": [{"alias": "…", "count": {"upTo": …}} | {"sum": {"field":
    /// {"fieldPath": …}}} | {"avg": …}]}`, not the whole request. Aliases default to `field_1`, `field_2`, … (skipping
    /// names already taken); 1 to 5 aggregations; duplicate aliases rejected.
    /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
    public init(
        firestoreJSON json: JSONValue, at location: String, database: DatabaseName, parent: ResourcePath
    ) throws(HearthError) {
        let reader = try JSONObjectReader(json, at: location, allowed: ["structuredQuery", "aggregations"])
        guard let queryJSON = reader["structuredQuery"] else {
            throw .invalidArgument("Invalid value at '\(location)': structuredQuery is required.")
        }
        let query = try StructuredQuery(
            firestoreJSON: queryJSON, at: reader.location(of: "structuredQuery"), database: database, parent: parent)
        let listLocation = reader.location(of: "aggregations")
        let items = try reader.array("aggregations") ?? []
        var decoded: [(alias: String?, kind: Kind)] = []
        for (index, item) in items.enumerated() {
            decoded.append(try Self.aggregation(item, at: "\(listLocation)[\(index)]"))
        }
        self.init(query: query, aggregations: try Self.named(decoded, at: listLocation))
    }

    /// The aggregations with their aliases, whatever the encoding they came in: 1 to 5 of them, given aliases
    /// unique, missing ones `field_1`, `field_2`, … (skipping names already taken).
    static func named(
        _ decoded: [(alias: String?, kind: Kind)], at listLocation: String
    ) throws(HearthError) -> [Aggregation] {
        guard (1...Self.maxAggregations).contains(decoded.count) else {
            throw .invalidArgument(
                "Invalid value at '\(listLocation)': an aggregation query needs 1 to \(Self.maxAggregations) aggregations, got \(decoded.count)."
            )
        }
        var taken: Set<String> = []
        for (index, item) in decoded.enumerated() {
            if let alias = item.alias, !taken.insert(alias).inserted {
                throw .invalidArgument(
                    "Invalid value at '\(listLocation)[\(index)].alias': the alias \"\(alias)\" is used twice; aliases must be unique."
                )
            }
        }
        var next = 1
        var aggregations: [Aggregation] = []
        for (alias, kind) in decoded {
            var name = alias
            while name == nil {
                let candidate = "field_\(next)"
                next += 1
                if !taken.contains(candidate) { name = candidate }
            }
            aggregations.append(Aggregation(alias: name!, kind: kind))
        }
        return aggregations
    }

    private static func aggregation(_ json: JSONValue, at location: String) throws(HearthError) -> (String?, Kind) {
        let kinds = ["count", "sum", "avg"]
        let reader = try JSONObjectReader(json, at: location, allowed: Set(kinds + ["alias"]))
        let alias = try reader.string("alias").flatMap { $0.isEmpty ? nil : $0 }
        if let alias { try Value.validateFieldName(alias, at: reader.location(of: "alias")) }
        let present = kinds.filter { reader[$0] != nil }
        guard present.count == 1, let kind = present.first else {
            throw .invalidArgument(
                "Invalid value at '\(location)': an aggregation has exactly one of count, sum or avg; found \(present.isEmpty ? "none" : present.joined(separator: ", "))."
            )
        }
        let member = reader.location(of: kind)
        switch kind {
        case "count":
            let count = try JSONObjectReader(reader[kind]!, at: member, allowed: ["upTo"])
            var upTo: Int64?
            if case .object = count["upTo"] {
                upTo = try JSONObjectReader(count["upTo"]!, at: count.location(of: "upTo"), allowed: ["value"]).integer(
                    "value")
            } else {
                upTo = try count.integer("upTo")
            }
            if let upTo, upTo <= 0 {
                throw .invalidArgument(
                    "Invalid value at '\(count.location(of: "upTo"))': upTo must be greater than zero, got \(upTo).")
            }
            return (alias, .count(upTo: upTo))
        default:
            let body = try JSONObjectReader(reader[kind]!, at: member, allowed: ["field"])
            guard let fieldJSON = body["field"] else {
                throw .invalidArgument(
                    "Invalid value at '\(member)': \(kind) needs field, e.g. {\"fieldPath\": \"price\"}.")
            }
            let field = try QueryJSONReading.fieldReference(fieldJSON, at: body.location(of: "field"))
            guard field != .documentName else {
                throw .invalidArgument(
                    "Invalid value at '\(body.location(of: "field"))': \(kind) needs a numeric field, not __name__.")
            }
            return (alias, kind == "sum" ? .sum(field) : .average(field))
        }
    }
}
