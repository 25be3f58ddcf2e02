/// `StructuredQuery.Filter` and its `CompositeFilter`, `FieldFilter` and `UnaryFilter` in protobuf, decoded into the
/// same ``QueryFilter`` as REST's and checked by the same operand rules.
extension QueryFilter {
    /// Decodes a `Filter` message: one of `composite_filter = 1`, `field_filter = 2`, `unary_filter = 3` (the last
    /// one given, as protobuf's oneof reads).
    init(protobuf message: ProtoReader, at location: String, database: DatabaseName) throws(HearthError) {
        var reader = message
        var decoded: QueryFilter?
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .lengthDelimited):
                decoded = try Self.composite(
                    try reader.readMessage(), at: "\(location).compositeFilter", database: database)
            case (2, .lengthDelimited):
                decoded = try Self.field(try reader.readMessage(), at: "\(location).fieldFilter", database: database)
            case (3, .lengthDelimited):
                decoded = try Self.unary(try reader.readMessage(), at: "\(location).unaryFilter")
            default: try reader.skip(tag)
            }
        }
        guard let decoded else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a filter needs one of compositeFilter, fieldFilter or unaryFilter.")
        }
        self = decoded
    }

    private static func composite(
        _ message: ProtoReader, at location: String, database: DatabaseName
    ) throws(HearthError) -> QueryFilter {
        var reader = message
        var op: Int32 = 0
        var items: [ProtoReader] = []
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .varint): op = try reader.readInt32()
            case (2, .lengthDelimited): items.append(try reader.readMessage())
            default: try reader.skip(tag)
            }
        }
        guard op != 0 else {
            throw .invalidArgument("Invalid value at '\(location)': a compositeFilter needs op, AND or OR.")
        }
        guard let composite = CompositeOperator.allCases.first(where: { $0.protoNumber == op }) else {
            throw ProtoEnumError.unknown(op, at: "\(location).op", type: "StructuredQuery.CompositeFilter.Operator")
        }
        guard !items.isEmpty else {
            throw .invalidArgument(
                "Invalid value at '\(location).filters': a compositeFilter needs at least one filter.")
        }
        var filters: [QueryFilter] = []
        filters.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            filters.append(try QueryFilter(protobuf: item, at: "\(location).filters[\(index)]", database: database))
        }
        return composite == .and ? .and(filters) : .or(filters)
    }

    private static func field(
        _ message: ProtoReader, at location: String, database: DatabaseName
    ) throws(HearthError) -> QueryFilter {
        var reader = message
        var fieldMessage: ProtoReader?
        var op: Int32 = 0
        var valueMessage: ProtoReader?
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .lengthDelimited): fieldMessage = try reader.readMessage()
            case (2, .varint): op = try reader.readInt32()
            case (3, .lengthDelimited): valueMessage = try reader.readMessage()
            default: try reader.skip(tag)
            }
        }
        guard let fieldMessage else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a fieldFilter needs field, e.g. {\"fieldPath\": \"age\"}.")
        }
        let field = try StructuredQuery.fieldReference(protobuf: fieldMessage, at: "\(location).field")
        guard op != 0 else {
            throw .invalidArgument("Invalid value at '\(location)': a fieldFilter needs op, e.g. \"EQUAL\".")
        }
        guard let fieldOperator = FieldOperator.allCases.first(where: { $0.protoNumber == op }) else {
            throw ProtoEnumError.unknown(op, at: "\(location).op", type: "StructuredQuery.FieldFilter.Operator")
        }
        guard let valueMessage else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a fieldFilter needs value, e.g. {\"integerValue\": \"1\"}.")
        }
        let valueLocation = "\(location).value"
        let isList = fieldOperator == .in || fieldOperator == .notIn || fieldOperator == .arrayContainsAny
        let value =
            try isList
            ? Value(listOperandProtobuf: valueMessage, at: valueLocation)
            : Value(queryOperandProtobuf: valueMessage, at: valueLocation)
        try checkOperand(value, of: fieldOperator, on: field, at: valueLocation, database: database)
        return .field(field, fieldOperator, value)
    }

    private static func unary(_ message: ProtoReader, at location: String) throws(HearthError) -> QueryFilter {
        var reader = message
        var op: Int32 = 0
        var fieldMessage: ProtoReader?
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .varint): op = try reader.readInt32()
            case (2, .lengthDelimited): fieldMessage = try reader.readMessage()
            default: try reader.skip(tag)
            }
        }
        guard op != 0 else {
            throw .invalidArgument("Invalid value at '\(location)': a unaryFilter needs op, e.g. \"IS_NULL\".")
        }
        guard let unaryOperator = UnaryOperator.allCases.first(where: { $0.protoNumber == op }) else {
            throw ProtoEnumError.unknown(op, at: "\(location).op", type: "StructuredQuery.UnaryFilter.Operator")
        }
        guard let fieldMessage else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a unaryFilter needs field, e.g. {\"fieldPath\": \"age\"}.")
        }
        let field = try StructuredQuery.fieldReference(protobuf: fieldMessage, at: "\(location).field")
        guard field != .documentName else {
            throw .invalidArgument(
                "Invalid value at '\(location)': \(unaryOperator.rawValue) cannot be applied to __name__; a document's name is never null or NaN."
            )
        }
        return .unary(field, unaryOperator)
    }

    /// Writes the body of a `Filter` message.
    func writeProtobuf(to writer: inout ProtoWriter) {
        switch self {
        case .field(let path, let op, let value):
            writer.writeMessage(2) { message in
                message.writeMessage(1) { StructuredQuery.writeFieldReference(path, to: &$0) }
                message.writeInt32(2, Int32(op.protoNumber))
                message.writeMessage(3) { value.writeProtobuf(to: &$0) }
            }
        case .unary(let path, let op):
            writer.writeMessage(3) { message in
                message.writeInt32(1, Int32(op.protoNumber))
                message.writeMessage(2) { StructuredQuery.writeFieldReference(path, to: &$0) }
            }
        case .and(let filters), .or(let filters):
            let op: CompositeOperator = if case .and = self { .and } else { .or }
            writer.writeMessage(1) { message in
                message.writeInt32(1, Int32(op.protoNumber))
                for filter in filters { message.writeMessage(2) { filter.writeProtobuf(to: &$0) } }
            }
        }
    }
}

extension Value {
    /// The operand of `IN`, `NOT_IN` or `ARRAY_CONTAINS_ANY`: its list may hold arrays (`regions in [["west"]]`),
    /// which a stored array may not, so the elements of a top-level `array_value` are decoded one by one.
    init(listOperandProtobuf message: ProtoReader, at location: String) throws(HearthError) {
        var reader = message
        var array: ProtoReader?
        while let tag = try reader.nextTag() {
            if tag.number == ProtoField.array, tag.wireType == .lengthDelimited {
                array = try reader.readMessage()
            } else {
                // Another member of the oneof after the array replaces it, as protobuf reads a oneof.
                if ProtoField.kinds.contains(tag.number) { array = nil }
                try reader.skip(tag)
            }
        }
        guard var array else {
            try self.init(queryOperandProtobuf: message, at: location)
            return
        }
        var elements: [Value] = []
        while let tag = try array.nextTag() {
            guard tag.number == 1, tag.wireType == .lengthDelimited else {
                try array.skip(tag)
                continue
            }
            elements.append(
                try Value(
                    queryOperandProtobuf: try array.readMessage(),
                    at: "\(location).arrayValue.values[\(elements.count)]"))
        }
        self = .array(elements)
    }
}
