/// `google.firestore.v1.Write`, `DocumentTransform.FieldTransform`, `Precondition` and `DocumentMask` in protobuf,
/// decoded into the same ``Write`` a REST `:commit` becomes, with the same rules.
extension Write {
    /// Decodes a `Write` message: `update = 1` (a `Document`), `delete = 2` or `transform = 6`, with
    /// `update_mask = 3`, `current_document = 4` and `update_transforms = 7`.
    /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
    public init(protobuf message: ProtoReader, at location: String, database: DatabaseName) throws(HearthError) {
        var reader = message
        enum Operation {
            case update(ProtoReader)
            case delete(String)
            case transform(ProtoReader)
        }
        var operation: Operation?
        var maskMessage: ProtoReader?
        var preconditionMessage: ProtoReader?
        var transformMessages: [ProtoReader] = []
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .lengthDelimited): operation = .update(try reader.readMessage())
            case (2, .lengthDelimited): operation = .delete(try reader.readString())
            case (6, .lengthDelimited): operation = .transform(try reader.readMessage())
            case (3, .lengthDelimited): maskMessage = try reader.readMessage()
            case (4, .lengthDelimited): preconditionMessage = try reader.readMessage()
            case (7, .lengthDelimited): transformMessages.append(try reader.readMessage())
            default: try reader.skip(tag)
            }
        }
        var transforms: [FieldTransform] = []
        for (index, item) in transformMessages.enumerated() {
            transforms.append(try FieldTransform(protobuf: item, at: "\(location).updateTransforms[\(index)]"))
        }
        let precondition = try preconditionMessage.map { message throws(HearthError) in
            try Precondition(protobuf: message, at: "\(location).currentDocument")
        }
        let mask = try maskMessage.map { message throws(HearthError) in try FieldPath.mask(protobuf: message) }
        switch operation {
        case nil:
            throw .invalidArgument(
                "Invalid value at '\(location)': a write has exactly one of update, delete or transform; found none.")
        case .update(let document)?:
            let (name, fields) = try Self.document(document, at: "\(location).update")
            guard let name else {
                throw .invalidArgument(
                    "Invalid value at '\(location).update': an update needs the document's name.")
            }
            self.init(
                path: try database.path(fromName: name), operation: .update(fields: fields, mask: mask),
                transforms: transforms, precondition: precondition)
        case .delete(let name)?:
            guard mask == nil else {
                throw .invalidArgument("Invalid value at '\(location)': a delete cannot have an updateMask.")
            }
            self.init(
                path: try database.path(fromName: name), operation: .delete, transforms: transforms,
                precondition: precondition)
        case .transform(let transform)?:
            var body = transform
            var name: String?
            var items: [ProtoReader] = []
            while let tag = try body.nextTag() {
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): name = try body.readString()
                case (2, .lengthDelimited): items.append(try body.readMessage())
                default: try body.skip(tag)
                }
            }
            guard let name, !name.isEmpty else {
                throw .invalidArgument(
                    "Invalid value at '\(location).transform': a transform needs its document's name.")
            }
            for (index, item) in items.enumerated() {
                transforms.append(
                    try FieldTransform(protobuf: item, at: "\(location).transform.fieldTransforms[\(index)]"))
            }
            self.init(
                path: try database.path(fromName: name), operation: .transform, transforms: transforms,
                precondition: precondition)
        }
    }

    /// The name and fields of a `Document` a client sent (`create_time` and `update_time` are output only and
    /// ignored, as on REST); the name is `nil` when absent or empty.
    static func document(_ message: ProtoReader, at location: String) throws(HearthError) -> (String?, [String: Value])
    {
        var reader = message
        var name: String?
        // Two passes over the (small) document message: one for the map entries, one for the name.
        let fields = try Value.decodeFields(protobuf: message, number: 2, at: "\(location).fields")
        while let tag = try reader.nextTag() {
            if tag.number == 1, tag.wireType == .lengthDelimited {
                name = try reader.readString()
            } else {
                try reader.skip(tag)
            }
        }
        return (name.flatMap { $0.isEmpty ? nil : $0 }, fields)
    }

    /// Writes the body of a `Write` message for `database`.
    public func writeProtobuf(to writer: inout ProtoWriter, database: DatabaseName) {
        let name = database.name(of: path)
        switch operation {
        case .update(let fields, let mask):
            writer.writeMessage(1) { document in
                document.writeString(1, name)
                Value.writeProtobufFields(fields, number: 2, to: &document)
            }
            if let mask { writer.writeMessage(3) { FieldPath.writeProtobufMask(mask, to: &$0) } }
        case .delete:
            writer.writeString(2, name)
        case .transform:
            break
        }
        if let precondition { writer.writeMessage(4) { precondition.writeProtobuf(to: &$0) } }
        if case .transform = operation {
            writer.writeMessage(6) { transform in
                transform.writeString(1, name)
                for item in transforms { transform.writeMessage(2) { item.writeProtobuf(to: &$0) } }
            }
        } else {
            for item in transforms { writer.writeMessage(7) { item.writeProtobuf(to: &$0) } }
        }
    }
}

extension Precondition {
    /// Decodes a `Precondition` message: `exists = 1` or `update_time = 2`.
    public init(protobuf message: ProtoReader, at location: String) throws(HearthError) {
        var reader = message
        var condition: Precondition?
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .varint): condition = .exists(try reader.readBool())
            case (2, .lengthDelimited):
                condition = .updateTime(try Timestamp(protobuf: try reader.readMessage(), at: "\(location).updateTime"))
            default: try reader.skip(tag)
            }
        }
        guard let condition else {
            throw .invalidArgument("Invalid value at '\(location)': a precondition needs exists or updateTime.")
        }
        self = condition
    }

    /// Writes the body of a `Precondition` message.
    public func writeProtobuf(to writer: inout ProtoWriter) {
        switch self {
        case .exists(let flag): writer.writeBool(1, flag)
        case .updateTime(let time): writer.writeMessage(2) { time.writeProtobuf(to: &$0) }
        }
    }
}

extension FieldTransform {
    /// Field numbers of `DocumentTransform.FieldTransform`.
    private enum ProtoField {
        static let fieldPath = 1
        static let serverValue = 2
        static let increment = 3
        static let maximum = 4
        static let minimum = 5
        static let appendMissingElements = 6
        static let removeAllFromArray = 7
    }

    /// Decodes a `FieldTransform` message: `field_path = 1` and one of its `transform_type` members.
    public init(protobuf message: ProtoReader, at location: String) throws(HearthError) {
        var reader = message
        var pathText = ""
        var kind: Kind?
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (ProtoField.fieldPath, .lengthDelimited): pathText = try reader.readString()
            case (ProtoField.serverValue, .varint):
                let value = try reader.readInt32()
                guard value == 1 else {
                    throw .invalidArgument(
                        "Invalid value at '\(location).setToServerValue': the only server value is REQUEST_TIME (1), got \(value)."
                    )
                }
                kind = .serverTimestamp
            case (ProtoField.increment, .lengthDelimited):
                kind = .increment(try Value(protobuf: try reader.readMessage(), at: "\(location).increment"))
            case (ProtoField.maximum, .lengthDelimited):
                kind = .maximum(try Value(protobuf: try reader.readMessage(), at: "\(location).maximum"))
            case (ProtoField.minimum, .lengthDelimited):
                kind = .minimum(try Value(protobuf: try reader.readMessage(), at: "\(location).minimum"))
            case (ProtoField.appendMissingElements, .lengthDelimited):
                kind = .appendMissingElements(
                    try Value.arrayElements(
                        protobuf: try reader.readMessage(), at: "\(location).appendMissingElements.values"))
            case (ProtoField.removeAllFromArray, .lengthDelimited):
                kind = .removeAllFromArray(
                    try Value.arrayElements(
                        protobuf: try reader.readMessage(), at: "\(location).removeAllFromArray.values"))
            default: try reader.skip(tag)
            }
        }
        guard !pathText.isEmpty else {
            throw .invalidArgument("Invalid value at '\(location)': a field transform needs a fieldPath.")
        }
        let path = try FieldPath(parsing: pathText)
        // As on REST: the result is stored under the path, so it is held to the names a document's fields may have.
        for segment in path.segments { try Value.validateFieldName(segment, at: "\(location).fieldPath") }
        guard let kind else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a field transform has exactly one of setToServerValue, increment, maximum, minimum, appendMissingElements, removeAllFromArray."
            )
        }
        self.init(fieldPath: path, kind: kind)
    }

    /// Writes the body of a `FieldTransform` message.
    public func writeProtobuf(to writer: inout ProtoWriter) {
        writer.writeString(ProtoField.fieldPath, fieldPath.description)
        func elements(_ number: Int, _ values: [Value]) {
            writer.writeMessage(number) { array in
                for value in values { array.writeMessage(1) { value.writeProtobuf(to: &$0) } }
            }
        }
        switch kind {
        case .serverTimestamp: writer.writeInt32(ProtoField.serverValue, 1)
        case .increment(let value): writer.writeMessage(ProtoField.increment) { value.writeProtobuf(to: &$0) }
        case .maximum(let value): writer.writeMessage(ProtoField.maximum) { value.writeProtobuf(to: &$0) }
        case .minimum(let value): writer.writeMessage(ProtoField.minimum) { value.writeProtobuf(to: &$0) }
        case .appendMissingElements(let values): elements(ProtoField.appendMissingElements, values)
        case .removeAllFromArray(let values): elements(ProtoField.removeAllFromArray, values)
        }
    }
}

extension FieldPath {
    /// Decodes a `DocumentMask` message (`field_paths = 1`, repeated).
    public static func mask(protobuf message: ProtoReader) throws(HearthError) -> [FieldPath] {
        var reader = message
        var paths: [FieldPath] = []
        while let tag = try reader.nextTag() {
            if tag.number == 1, tag.wireType == .lengthDelimited {
                paths.append(try FieldPath(parsing: try reader.readString()))
            } else {
                try reader.skip(tag)
            }
        }
        return paths
    }

    /// Writes the body of a `DocumentMask` message.
    public static func writeProtobufMask(_ paths: [FieldPath], to writer: inout ProtoWriter) {
        for path in paths { writer.writeString(1, path.description) }
    }
}
