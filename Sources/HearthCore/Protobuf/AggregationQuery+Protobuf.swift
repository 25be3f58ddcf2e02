/// `google.firestore.v1.StructuredAggregationQuery` in protobuf, decoded into the same ``AggregationQuery`` a REST
/// `:runAggregationQuery` becomes, aliases named by the same rule (``AggregationQuery/named(_:at:)``).
extension AggregationQuery {
    /// Decodes a `StructuredAggregationQuery` message: `structured_query = 1`, `aggregations = 3`.
    /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
    public init(
        protobuf message: ProtoReader, at location: String, database: DatabaseName, parent: ResourcePath
    ) throws(HearthError) {
        var reader = message
        var queryMessage: ProtoReader?
        var items: [ProtoReader] = []
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .lengthDelimited): queryMessage = try reader.readMessage()
            case (3, .lengthDelimited): items.append(try reader.readMessage())
            default: try reader.skip(tag)
            }
        }
        guard let queryMessage else {
            throw .invalidArgument("Invalid value at '\(location)': structuredQuery is required.")
        }
        let query = try StructuredQuery(
            protobuf: queryMessage, at: "\(location).structuredQuery", database: database, parent: parent)
        var decoded: [(alias: String?, kind: Kind)] = []
        for (index, item) in items.enumerated() {
            decoded.append(try Self.aggregation(protobuf: item, at: "\(location).aggregations[\(index)]"))
        }
        self.init(query: query, aggregations: try Self.named(decoded, at: "\(location).aggregations"))
    }

    /// An `Aggregation`: one of `count = 1` (`up_to = 1`, an `Int64Value`), `sum = 2`, `avg = 3` (`field = 1`),
    /// and `alias = 7`.
    private static func aggregation(
        protobuf message: ProtoReader, at location: String
    ) throws(HearthError) -> (
        String?, Kind
    ) {
        var reader = message
        var alias = ""
        var kind: Kind?
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .lengthDelimited):
                var count = try reader.readMessage()
                var upTo: Int64?
                while let inner = try count.nextTag() {
                    guard inner.number == 1, inner.wireType == .lengthDelimited else {
                        try count.skip(inner)
                        continue
                    }
                    var wrapper = try count.readMessage()
                    var value: Int64 = 0
                    while let field = try wrapper.nextTag() {
                        if field.number == 1, field.wireType == .varint {
                            value = try wrapper.readInt64()
                        } else {
                            try wrapper.skip(field)
                        }
                    }
                    upTo = value
                }
                if let upTo, upTo <= 0 {
                    throw .invalidArgument(
                        "Invalid value at '\(location).count.upTo': upTo must be greater than zero, got \(upTo).")
                }
                kind = .count(upTo: upTo)
            case (2, .lengthDelimited), (3, .lengthDelimited):
                let name = tag.number == 2 ? "sum" : "avg"
                let field = try numericField(try reader.readMessage(), of: name, at: "\(location).\(name)")
                kind = tag.number == 2 ? .sum(field) : .average(field)
            case (7, .lengthDelimited): alias = try reader.readString()
            default: try reader.skip(tag)
            }
        }
        if !alias.isEmpty { try Value.validateFieldName(alias, at: "\(location).alias") }
        guard let kind else {
            throw .invalidArgument(
                "Invalid value at '\(location)': an aggregation has exactly one of count, sum or avg; found none.")
        }
        return (alias.isEmpty ? nil : alias, kind)
    }

    /// The `field = 1` of a `Sum` or `Avg`: a field path, not `__name__`.
    private static func numericField(
        _ message: ProtoReader, of name: String, at location: String
    ) throws(HearthError) -> FieldPath {
        var reader = message
        var field: FieldPath?
        while let tag = try reader.nextTag() {
            if tag.number == 1, tag.wireType == .lengthDelimited {
                field = try StructuredQuery.fieldReference(protobuf: try reader.readMessage(), at: "\(location).field")
            } else {
                try reader.skip(tag)
            }
        }
        guard let field else {
            throw .invalidArgument(
                "Invalid value at '\(location)': \(name) needs field, e.g. {\"fieldPath\": \"price\"}.")
        }
        guard field != .documentName else {
            throw .invalidArgument(
                "Invalid value at '\(location).field': \(name) needs a numeric field, not __name__.")
        }
        return field
    }

    /// Writes the body of a `StructuredAggregationQuery` message.
    public func writeProtobuf(to writer: inout ProtoWriter) {
        writer.writeMessage(1) { query.writeProtobuf(to: &$0) }
        for aggregation in aggregations {
            writer.writeMessage(3) { message in
                switch aggregation.kind {
                case .count(let upTo):
                    message.writeMessage(1) { count in
                        if let upTo { count.writeMessage(1) { $0.writeNonZeroInt64(1, upTo) } }
                    }
                case .sum(let field), .average(let field):
                    let number = if case .sum = aggregation.kind { 2 } else { 3 }
                    message.writeMessage(number) { body in
                        body.writeMessage(1) { StructuredQuery.writeFieldReference(field, to: &$0) }
                    }
                }
                message.writeNonEmptyString(7, aggregation.alias)
            }
        }
    }
}
