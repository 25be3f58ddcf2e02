/// `google.firestore.v1.StructuredQuery` (with its `Filter`, `Order`, `Cursor`, `Projection` and
/// `CollectionSelector`) in protobuf, decoded into the same ``StructuredQuery`` a REST `:runQuery` becomes and
/// checked by the same rules (``StructuredQuery/validate(database:at:)``, the operand rules of each operator).
extension StructuredQuery {
    /// Field numbers of `StructuredQuery`.
    private enum ProtoField {
        static let select = 1
        static let from = 2
        static let `where` = 3
        static let orderBy = 4
        static let limit = 5
        static let offset = 6
        static let startAt = 7
        static let endAt = 8
        static let findNearest = 9
    }

    /// Decodes a `StructuredQuery` message run under `parent` (the documents root or a document).
    /// - Parameter location: where the message sits, for error messages (`structuredQuery`).
    /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
    public init(
        protobuf message: ProtoReader, at location: String, database: DatabaseName, parent: ResourcePath
    ) throws(HearthError) {
        try Self.checkParent(parent, database: database)
        var reader = message
        var selectors: [ProtoReader] = []
        var filterMessage: ProtoReader?
        var orders: [ProtoReader] = []
        var startMessage: ProtoReader?
        var endMessage: ProtoReader?
        var selectMessage: ProtoReader?
        var offset: Int32 = 0
        var limit: Int32?
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (ProtoField.select, .lengthDelimited): selectMessage = try reader.readMessage()
            case (ProtoField.from, .lengthDelimited): selectors.append(try reader.readMessage())
            case (ProtoField.where, .lengthDelimited): filterMessage = try reader.readMessage()
            case (ProtoField.orderBy, .lengthDelimited): orders.append(try reader.readMessage())
            case (ProtoField.limit, .lengthDelimited): limit = try Self.int32Wrapper(try reader.readMessage())
            case (ProtoField.offset, .varint): offset = try reader.readInt32()
            case (ProtoField.startAt, .lengthDelimited): startMessage = try reader.readMessage()
            case (ProtoField.endAt, .lengthDelimited): endMessage = try reader.readMessage()
            case (ProtoField.findNearest, .lengthDelimited):
                throw .invalidArgument(
                    "Invalid value at '\(location).findNearest': vector search (findNearest) is not supported by Hearth."
                )
            default: try reader.skip(tag)
            }
        }
        guard selectors.count == 1 else {
            throw .invalidArgument(
                "Invalid value at '\(location).from': a query selects exactly one collection, e.g. [{\"collectionId\": \"users\"}]; found \(selectors.count)."
            )
        }
        let (collectionID, allDescendants) = try Self.selector(selectors[0], at: "\(location).from[0]")
        self.init(parent: parent, collectionID: collectionID, allDescendants: allDescendants)
        if let filterMessage {
            filter = try QueryFilter(protobuf: filterMessage, at: "\(location).where", database: database)
        }
        for (index, item) in orders.enumerated() {
            orderBy.append(try Self.order(protobuf: item, at: "\(location).orderBy[\(index)]"))
        }
        startAt = try startMessage.map { message throws(HearthError) in
            try Self.cursor(protobuf: message, at: "\(location).startAt")
        }
        endAt = try endMessage.map { message throws(HearthError) in
            try Self.cursor(protobuf: message, at: "\(location).endAt")
        }
        for (name, number) in [("offset", offset), ("limit", limit ?? 0)] where number < 0 {
            throw .invalidArgument(
                "Invalid value at '\(location).\(name)': \(name) must be zero or more, got \(number).")
        }
        self.offset = Int(offset)
        self.limit = limit.map(Int.init)
        projection = try selectMessage.flatMap { message throws(HearthError) in
            try Self.projection(protobuf: message, at: "\(location).select")
        }
        try validate(database: database, at: location)
    }

    /// A `google.protobuf.Int32Value` (`value = 1`).
    private static func int32Wrapper(_ message: ProtoReader) throws(HearthError) -> Int32 {
        var reader = message
        var value: Int32 = 0
        while let tag = try reader.nextTag() {
            if tag.number == 1, tag.wireType == .varint { value = try reader.readInt32() } else { try reader.skip(tag) }
        }
        return value
    }

    private static func selector(_ message: ProtoReader, at location: String) throws(HearthError) -> (String, Bool) {
        var reader = message
        var collectionID = ""
        var allDescendants = false
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (2, .lengthDelimited): collectionID = try reader.readString()
            case (3, .varint): allDescendants = try reader.readBool()
            default: try reader.skip(tag)
            }
        }
        return try checkSelector(
            collectionID: collectionID, allDescendants: allDescendants, at: "\(location).collectionId")
    }

    /// A `FieldReference` (`field_path = 2`) as a field path a query may name.
    static func fieldReference(protobuf message: ProtoReader, at location: String) throws(HearthError) -> FieldPath {
        var reader = message
        var text = ""
        while let tag = try reader.nextTag() {
            if tag.number == 2, tag.wireType == .lengthDelimited {
                text = try reader.readString()
            } else {
                try reader.skip(tag)
            }
        }
        guard !text.isEmpty else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a field reference needs a fieldPath, e.g. {\"fieldPath\": \"address.city\"}."
            )
        }
        return try QueryJSONReading.fieldPath(text, at: "\(location).fieldPath")
    }

    private static func order(protobuf message: ProtoReader, at location: String) throws(HearthError) -> QueryOrder {
        var reader = message
        var field: FieldPath?
        var direction: Int32 = 0
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .lengthDelimited):
                field = try fieldReference(protobuf: try reader.readMessage(), at: "\(location).field")
            case (2, .varint): direction = try reader.readInt32()
            default: try reader.skip(tag)
            }
        }
        guard let field else {
            throw .invalidArgument(
                "Invalid value at '\(location)': an order needs field, e.g. {\"fieldPath\": \"age\"}.")
        }
        // DIRECTION_UNSPECIFIED (0) is ascending, as on REST.
        guard (0...2).contains(direction) else {
            throw ProtoEnumError.unknown(direction, at: "\(location).direction", type: "StructuredQuery.Direction")
        }
        return QueryOrder(field: field, descending: direction == 2)
    }

    private static func cursor(protobuf message: ProtoReader, at location: String) throws(HearthError) -> QueryCursor {
        var reader = message
        var values: [Value] = []
        var before = false
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .lengthDelimited):
                values.append(
                    try Value(queryOperandProtobuf: try reader.readMessage(), at: "\(location).values[\(values.count)]")
                )
            case (2, .varint): before = try reader.readBool()
            default: try reader.skip(tag)
            }
        }
        return QueryCursor(values: values, before: before)
    }

    /// A `Projection` (`fields = 2`); `nil` when it lists no fields (whole documents), as on REST.
    private static func projection(
        protobuf message: ProtoReader, at location: String
    ) throws(HearthError)
        -> [FieldPath]?
    {
        var reader = message
        var paths: [FieldPath] = []
        var count = 0
        while let tag = try reader.nextTag() {
            guard tag.number == 2, tag.wireType == .lengthDelimited else {
                try reader.skip(tag)
                continue
            }
            let path = try fieldReference(protobuf: try reader.readMessage(), at: "\(location).fields[\(count)]")
            count += 1
            if path != .documentName && !paths.contains(path) { paths.append(path) }
        }
        return count == 0 ? nil : paths
    }

    // MARK: encoding

    /// Writes the body of a `StructuredQuery` message (the parent travels in the request, not here). An empty
    /// ``projection`` is written as a select of `__name__`, Firestore's way to ask for names only.
    public func writeProtobuf(to writer: inout ProtoWriter) {
        if let projection {
            let paths = projection.isEmpty ? [FieldPath.documentName] : projection
            writer.writeMessage(ProtoField.select) { select in
                for path in paths { select.writeMessage(2) { Self.writeFieldReference(path, to: &$0) } }
            }
        }
        writer.writeMessage(ProtoField.from) { selector in
            selector.writeNonEmptyString(2, collectionID)
            selector.writeTrue(3, allDescendants)
        }
        if let filter { writer.writeMessage(ProtoField.where) { filter.writeProtobuf(to: &$0) } }
        for order in orderBy {
            writer.writeMessage(ProtoField.orderBy) { message in
                message.writeMessage(1) { Self.writeFieldReference(order.field, to: &$0) }
                message.writeInt32(2, order.descending ? 2 : 1)
            }
        }
        if let limit { writer.writeMessage(ProtoField.limit) { $0.writeNonZeroInt32(1, Int32(clamping: limit)) } }
        writer.writeNonZeroInt32(ProtoField.offset, Int32(clamping: offset))
        if let startAt { writer.writeMessage(ProtoField.startAt) { startAt.writeProtobuf(to: &$0) } }
        if let endAt { writer.writeMessage(ProtoField.endAt) { endAt.writeProtobuf(to: &$0) } }
    }

    /// Writes the body of a `FieldReference` message.
    static func writeFieldReference(_ path: FieldPath, to writer: inout ProtoWriter) {
        writer.writeString(2, path.description)
    }
}

extension QueryCursor {
    /// Writes the body of a `Cursor` message.
    public func writeProtobuf(to writer: inout ProtoWriter) {
        for value in values { writer.writeMessage(1) { value.writeProtobuf(to: &$0) } }
        writer.writeTrue(2, before)
    }
}

/// The error for an enum number a message's definition does not have (proto3 enums are open on the wire; Firestore
/// refuses the numbers it does not define).
enum ProtoEnumError {
    static func unknown(_ number: Int32, at location: String, type: String) -> HearthError {
        .invalidArgument(
            "Invalid value at '\(location)' (type.googleapis.com/google.firestore.v1.\(type)): \(number) is not one of its values."
        )
    }
}
