/// `google.firestore.v1.Value`, `ArrayValue`, `MapValue` and `google.type.LatLng` in protobuf, decoded into the
/// same ``Value`` the REST API's typed JSON becomes and held to the same rules (``Value/checkReference(_:reading:at:)``,
/// field names, no array directly in an array, timestamps in Firestore's range).
extension Value {
    /// Field numbers of `google.firestore.v1.Value` (the `value_type` oneof).
    enum ProtoField {
        static let boolean = 1
        static let integer = 2
        static let double = 3
        static let reference = 5
        static let map = 6
        static let geoPoint = 8
        static let array = 9
        static let timestamp = 10
        static let null = 11
        static let string = 17
        static let bytes = 18
        /// Pipeline members Firestore added for its pipeline API: refused, as in a write.
        static let pipelineOnly: Set<Int> = [19, 20, 21, 22]
        /// Every member of the `value_type` oneof.
        static let kinds: Set<Int> = pipelineOnly.union([1, 2, 3, 5, 6, 8, 9, 10, 11, 17, 18])
    }

    /// Decodes a written value (checked, timestamps cut to microseconds) from a `Value` message.
    /// - Throws: `INVALID_ARGUMENT` naming the location and what is wrong.
    public init(protobuf message: ProtoReader, at location: @autoclosure () -> String) throws(HearthError) {
        try self.init(protobuf: message, at: location(), reading: .written)
    }

    /// Decodes a query operand or cursor value: timestamps keep their nanoseconds and references may name any path
    /// (see ``init(queryOperandJSON:at:)``).
    public init(queryOperandProtobuf message: ProtoReader, at location: @autoclosure () -> String) throws(HearthError) {
        try self.init(protobuf: message, at: location(), reading: .operand)
    }

    init(
        protobuf message: ProtoReader, at location: @autoclosure () -> String, reading: ValueReading
    ) throws(HearthError) {
        var reader = message
        var value: Value?
        // A oneof whose member appears more than once takes the last one, as protobuf parsers do.
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (ProtoField.null, .varint):
                _ = try reader.readVarint()
                value = .null
            case (ProtoField.boolean, .varint): value = .boolean(try reader.readBool())
            case (ProtoField.integer, .varint): value = .integer(try reader.readInt64())
            case (ProtoField.double, .fixed64): value = .double(try reader.readDouble())
            case (ProtoField.timestamp, .lengthDelimited):
                let time = try Timestamp(protobuf: try reader.readMessage(), at: location())
                value = .timestamp(reading.truncatesTimestamps ? time.truncatedToMicroseconds : time)
            case (ProtoField.string, .lengthDelimited): value = .string(try reader.readString())
            case (ProtoField.bytes, .lengthDelimited): value = .bytes(try reader.readBytes())
            case (ProtoField.reference, .lengthDelimited):
                let text = try reader.readString()
                try Self.checkReference(text, reading: reading, at: location())
                value = .reference(text)
            case (ProtoField.geoPoint, .lengthDelimited):
                value = try Self.geoPoint(protobuf: try reader.readMessage(), at: location())
            case (ProtoField.array, .lengthDelimited):
                value = .array(
                    try Self.arrayElements(protobuf: try reader.readMessage(), at: location(), reading: reading))
            case (ProtoField.map, .lengthDelimited):
                value = .map(
                    try Self.decodeFields(
                        protobuf: try reader.readMessage(), number: 1, at: location(), reading: reading))
            case (let number, _) where ProtoField.pipelineOnly.contains(number):
                throw .invalidArgument(
                    "Invalid value at '\(location())': value field \(number) belongs to Firestore's pipeline API, which Hearth does not support."
                )
            default:
                try reader.skip(tag)
            }
        }
        guard let value else {
            throw .invalidArgument(
                "Invalid value at '\(location())': a value needs one of its kinds set (stringValue, integerValue, …).")
        }
        self = value
    }

    /// The elements of an `ArrayValue` message (`values = 1`).
    static func arrayElements(
        protobuf message: ProtoReader, at location: @autoclosure () -> String, reading: ValueReading
    ) throws(HearthError) -> [Value] {
        var reader = message
        var elements: [Value] = []
        while let tag = try reader.nextTag() {
            guard tag.number == 1, tag.wireType == .lengthDelimited else {
                try reader.skip(tag)
                continue
            }
            let index = elements.count
            let element = try Value(
                protobuf: try reader.readMessage(), at: "\(location())[\(index)]", reading: reading)
            if case .array = element {
                throw .invalidArgument(
                    "Invalid value at '\(location())[\(index)]': an array cannot directly contain another array; wrap it in a map."
                )
            }
            elements.append(element)
        }
        return elements
    }

    /// Decodes the elements of an `ArrayValue` message as written values (`appendMissingElements`, …).
    public static func arrayElements(
        protobuf message: ProtoReader, at location: @autoclosure () -> String
    ) throws(HearthError) -> [Value] {
        try arrayElements(protobuf: message, at: location(), reading: .written)
    }

    /// Decodes a field map held as the map entries `number` of `message` (`Document.fields = 2`,
    /// `MapValue.fields = 1`): names are checked as in JSON; a repeated name keeps its last value, as protobuf
    /// maps do.
    public static func decodeFields(
        protobuf message: ProtoReader, number: Int, at location: @autoclosure () -> String
    ) throws(HearthError) -> [String: Value] {
        try decodeFields(protobuf: message, number: number, at: location(), reading: .written)
    }

    static func decodeFields(
        protobuf message: ProtoReader, number: Int, at location: @autoclosure () -> String, reading: ValueReading
    ) throws(HearthError) -> [String: Value] {
        var reader = message
        var fields: [String: Value] = [:]
        while let tag = try reader.nextTag() {
            guard tag.number == number, tag.wireType == .lengthDelimited else {
                try reader.skip(tag)
                continue
            }
            var entry = try reader.readMessage()
            var name = ""
            var valueMessage: ProtoReader?
            while let entryTag = try entry.nextTag() {
                switch (entryTag.number, entryTag.wireType) {
                case (1, .lengthDelimited): name = try entry.readString()
                case (2, .lengthDelimited): valueMessage = try entry.readMessage()
                default: try entry.skip(entryTag)
                }
            }
            let here = location().isEmpty ? name : "\(location()).\(name)"
            if reading.checksNames { try validateFieldName(name, at: here) }
            guard let valueMessage else {
                throw .invalidArgument("Invalid value at '\(here)': a map entry needs its value.")
            }
            fields[name] = try Value(protobuf: valueMessage, at: here, reading: reading)
        }
        return fields
    }

    private static func geoPoint(
        protobuf message: ProtoReader, at location: @autoclosure () -> String
    ) throws(HearthError) -> Value {
        var reader = message
        var latitude = 0.0
        var longitude = 0.0
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .fixed64): latitude = try reader.readDouble()
            case (2, .fixed64): longitude = try reader.readDouble()
            default: try reader.skip(tag)
            }
        }
        try checkGeoPoint(latitude: latitude, longitude: longitude, at: location())
        return .geoPoint(latitude: latitude, longitude: longitude)
    }

    // MARK: encoding

    /// Writes this value as the body of a `Value` message.
    public func writeProtobuf(to writer: inout ProtoWriter) {
        switch self {
        case .null: writer.writeInt32(ProtoField.null, 0)
        case .boolean(let flag): writer.writeBool(ProtoField.boolean, flag)
        case .integer(let integer): writer.writeInt64(ProtoField.integer, integer)
        case .double(let double): writer.writeDouble(ProtoField.double, double)
        case .timestamp(let time): writer.writeMessage(ProtoField.timestamp) { time.writeProtobuf(to: &$0) }
        case .string(let text): writer.writeString(ProtoField.string, text)
        case .bytes(let bytes): writer.writeBytes(ProtoField.bytes, bytes)
        case .reference(let name): writer.writeString(ProtoField.reference, name)
        case .geoPoint(let latitude, let longitude):
            writer.writeMessage(ProtoField.geoPoint) { point in
                // proto3 leaves a zero coordinate out; -0.0 is not zero to protobuf and is written.
                if latitude.bitPattern != 0 { point.writeDouble(1, latitude) }
                if longitude.bitPattern != 0 { point.writeDouble(2, longitude) }
            }
        case .array(let elements):
            writer.writeMessage(ProtoField.array) { array in
                for element in elements { array.writeMessage(1) { element.writeProtobuf(to: &$0) } }
            }
        case .map(let fields):
            writer.writeMessage(ProtoField.map) { Self.writeProtobufFields(fields, number: 1, to: &$0) }
        }
    }

    /// Writes a field map as map entries `number` (`MapValue.fields = 1`, `Document.fields = 2`) in the order
    /// Google's Python runtime (upb) writes them with deterministic serialization, so equal maps give equal bytes
    /// and the tests can compare bytes with it: UTF-8 byte order, except that of two names where one is a prefix of
    /// the other the longer comes first (`ab` before `a`). Protobuf leaves map order open; readers accept any.
    public static func writeProtobufFields(_ fields: [String: Value], number: Int, to writer: inout ProtoWriter) {
        let members = fields.sorted { lhs, rhs in
            let order = compareBytes(lhs.key.utf8.prefix(rhs.key.utf8.count), rhs.key.utf8.prefix(lhs.key.utf8.count))
            return order != 0 ? order < 0 : lhs.key.utf8.count > rhs.key.utf8.count
        }
        for member in members {
            writer.writeMessage(number) { entry in
                entry.writeString(1, member.key)
                entry.writeMessage(2) { member.value.writeProtobuf(to: &$0) }
            }
        }
    }
}

extension Timestamp {
    /// Decodes a `google.protobuf.Timestamp` message (`seconds = 1`, `nanos = 2`), which must lie in Firestore's
    /// range with `nanos` in 0...999,999,999.
    public init(protobuf message: ProtoReader, at location: @autoclosure () -> String) throws(HearthError) {
        var reader = message
        var seconds: Int64 = 0
        var nanos: Int32 = 0
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .varint): seconds = try reader.readInt64()
            case (2, .varint): nanos = try reader.readInt32()
            default: try reader.skip(tag)
            }
        }
        let time = Timestamp(seconds: seconds, nanos: nanos)
        guard time.isValid else {
            throw .invalidArgument(
                "Invalid value at '\(location())': a timestamp must lie between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999999Z with nanos in 0...999999999; got seconds \(seconds), nanos \(nanos)."
            )
        }
        self = time
    }

    /// Writes the body of a `google.protobuf.Timestamp` message.
    public func writeProtobuf(to writer: inout ProtoWriter) {
        writer.writeNonZeroInt64(1, seconds)
        writer.writeNonZeroInt32(2, nanos)
    }
}
