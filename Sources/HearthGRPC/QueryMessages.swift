public import HearthCore
public import HearthStore

extension FirestoreRPC {
    /// `RunQueryRequest`: `parent = 1`, `structured_query = 2`, `transaction = 5`, `new_transaction = 6` or
    /// `read_time = 7`, `explain_options = 10`.
    public struct RunQueryRequest: Sendable, Equatable {
        /// The database queried.
        public var database: DatabaseName
        /// The query (its ``StructuredQuery/parent`` is the request's `parent`).
        public var query: StructuredQuery
        /// What the query sees.
        public var consistency: ReadConsistency
        /// `explain_options.analyze`: `nil` without explain options, false to plan only, true to run and measure.
        public var explainAnalyze: Bool?

        /// A request.
        public init(
            database: DatabaseName, query: StructuredQuery, consistency: ReadConsistency = .latest,
            explainAnalyze: Bool? = nil
        ) {
            self.database = database
            self.query = query
            self.consistency = consistency
            self.explainAnalyze = explainAnalyze
        }

        private static let numbers = (transaction: 5, newTransaction: Int?.some(6), readTime: 7)

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            let (database, parent, queryMessage, consistency, explain) = try FirestoreRPC.queryEnvelope(
                bytes, numbers: Self.numbers, explainField: 10, missing: "A RunQueryRequest needs a structuredQuery.")
            let query = try StructuredQuery(
                protobuf: queryMessage, at: "structuredQuery", database: database, parent: parent)
            self.init(database: database, query: query, consistency: consistency, explainAnalyze: explain)
        }

        /// The message's bytes.
        public var protobuf: [UInt8] {
            var writer = ProtoWriter()
            writer.writeString(1, database.name(of: query.parent))
            writer.writeMessage(2) { query.writeProtobuf(to: &$0) }
            FirestoreRPC.writeConsistency(consistency, numbers: Self.numbers, to: &writer)
            if let explainAnalyze { writer.writeMessage(10) { $0.writeTrue(1, explainAnalyze) } }
            return writer.bytes
        }
    }

    /// The bytes of one `RunQueryResponse`: `document = 1`, `transaction = 2` (on the first answer of a new
    /// transaction), `read_time = 3`, `skipped_results = 4`, `done = 6` (on the last).
    public static func runQueryResponse(
        document: StoredDocument?, database: DatabaseName, transaction: TransactionID?, readTime: Timestamp,
        skippedResults: Int32 = 0, done: Bool = false
    ) throws(HearthError) -> [UInt8] {
        var writer = ProtoWriter()
        if let document {
            try writer.writeMessage(1) { body throws(HearthError) in
                try document.writeProtobuf(to: &body, database: database)
            }
        }
        if let transaction { writer.writeBytes(2, transaction.bytes) }
        writer.writeMessage(3) { readTime.writeProtobuf(to: &$0) }
        writer.writeNonZeroInt32(4, skippedResults)
        writer.writeTrue(6, done)
        return writer.bytes
    }
}

extension FirestoreRPC {
    /// `RunAggregationQueryRequest`: `parent = 1`, `structured_aggregation_query = 2`, `transaction = 4`,
    /// `new_transaction = 5` or `read_time = 6`, `explain_options = 8`.
    public struct RunAggregationQueryRequest: Sendable, Equatable {
        /// The database queried.
        public var database: DatabaseName
        /// The aggregations and the query they run over.
        public var aggregation: AggregationQuery
        /// What the query sees.
        public var consistency: ReadConsistency
        /// `explain_options.analyze`: `nil` without explain options.
        public var explainAnalyze: Bool?

        /// A request.
        public init(
            database: DatabaseName, aggregation: AggregationQuery, consistency: ReadConsistency = .latest,
            explainAnalyze: Bool? = nil
        ) {
            self.database = database
            self.aggregation = aggregation
            self.consistency = consistency
            self.explainAnalyze = explainAnalyze
        }

        private static let numbers = (transaction: 4, newTransaction: Int?.some(5), readTime: 6)

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            let (database, parent, queryMessage, consistency, explain) = try FirestoreRPC.queryEnvelope(
                bytes, numbers: Self.numbers, explainField: 8,
                missing: "A RunAggregationQueryRequest needs a structuredAggregationQuery.")
            let aggregation = try AggregationQuery(
                protobuf: queryMessage, at: "structuredAggregationQuery", database: database, parent: parent)
            self.init(database: database, aggregation: aggregation, consistency: consistency, explainAnalyze: explain)
        }

        /// The message's bytes.
        public var protobuf: [UInt8] {
            var writer = ProtoWriter()
            writer.writeString(1, database.name(of: aggregation.query.parent))
            writer.writeMessage(2) { aggregation.writeProtobuf(to: &$0) }
            FirestoreRPC.writeConsistency(consistency, numbers: Self.numbers, to: &writer)
            if let explainAnalyze { writer.writeMessage(8) { $0.writeTrue(1, explainAnalyze) } }
            return writer.bytes
        }
    }

    /// `ExplainOptions.analyze` (`analyze = 1`).
    static func explainAnalyze(_ message: ProtoReader) throws(HearthError) -> Bool {
        var reader = message
        var analyze = false
        while let tag = try reader.nextTag() {
            if tag.number == 1, tag.wireType == .varint {
                analyze = try reader.readBool()
            } else {
                try reader.skip(tag)
            }
        }
        return analyze
    }

    /// The bytes of a `RunAggregationQueryResponse`: `result = 1` (`aggregate_fields = 2`, a map of alias to
    /// value), `transaction = 2`, `read_time = 3`.
    public static func runAggregationQueryResponse(
        _ values: [String: Value], transaction: TransactionID?, readTime: Timestamp
    ) -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeMessage(1) { Value.writeProtobufFields(values, number: 2, to: &$0) }
        if let transaction { writer.writeBytes(2, transaction.bytes) }
        writer.writeMessage(3) { readTime.writeProtobuf(to: &$0) }
        return writer.bytes
    }
}

extension FirestoreRPC {
    /// The members `RunQueryRequest` and `RunAggregationQueryRequest` share: `parent = 1`, the query message `= 2`,
    /// the read consistency at `numbers`, and explain options at `explainField`.
    /// - Throws: `INVALID_ARGUMENT` for a bad parent or member, and `missing` without a query message.
    static func queryEnvelope(
        _ bytes: [UInt8], numbers: (transaction: Int, newTransaction: Int?, readTime: Int), explainField: Int,
        missing: String
    ) throws(HearthError) -> (
        database: DatabaseName, parent: ResourcePath, query: ProtoReader, consistency: ReadConsistency, explain: Bool?
    ) {
        var reader = try ProtoReader(bytes)
        var parentName = ""
        var queryMessage: ProtoReader?
        var consistency = ReadConsistency.latest
        var explain: Bool?
        while let tag = try reader.nextTag() {
            if try readConsistency(tag, numbers: numbers, from: &reader, into: &consistency) { continue }
            switch (tag.number, tag.wireType) {
            case (1, .lengthDelimited): parentName = try reader.readString()
            case (2, .lengthDelimited): queryMessage = try reader.readMessage()
            case (explainField, .lengthDelimited): explain = try explainAnalyze(try reader.readMessage())
            default: try reader.skip(tag)
            }
        }
        let (database, parent) = try path(named: parentName, at: "parent")
        guard let queryMessage else { throw .invalidArgument(missing) }
        return (database, parent, queryMessage, consistency, explain)
    }
}
