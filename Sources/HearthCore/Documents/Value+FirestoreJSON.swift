import Foundation

extension Value {
    /// Decodes Firestore's typed JSON (`{"stringValue":"x"}`, `{"integerValue":"5"}`, …).
    /// - Parameter location: where the value sits, for error messages (`fields.address.city`).
    /// - Throws: `INVALID_ARGUMENT` naming the location and what is wrong.
    public init(firestoreJSON json: JSONValue, at location: @autoclosure () -> String) throws(HearthError) {
        try self.init(firestoreJSON: json, at: location(), reading: .written)
    }

    /// Decodes a query's operand or cursor value: as a written value, but a timestamp keeps its nanoseconds, since
    /// Firestore compares stored microseconds with the operand as given (`t < …T00:00:00.000001001Z` matches a
    /// stored `…T00:00:00.000001Z`).
    public init(queryOperandJSON json: JSONValue, at location: @autoclosure () -> String) throws(HearthError) {
        try self.init(firestoreJSON: json, at: location(), reading: .operand)
    }

    /// As the public forms, reading as `reading` says.
    init(
        firestoreJSON json: JSONValue, at location: @autoclosure () -> String, reading: ValueReading
    ) throws(HearthError) {
        // The location is built only for an error message: bulk commits decode thousands of values.
        guard case .object(let object) = json else {
            throw .invalidArgument(
                "Invalid value at '\(location())': expected an object such as {\"stringValue\": \"…\"}.")
        }
        guard object.count == 1, let (kind, payload) = object.first else {
            throw .invalidArgument(
                "Invalid value at '\(location())': a value object has exactly one member (stringValue, integerValue, …), found \(object.count)."
            )
        }
        try self.init(firestoreKind: kind, payload: payload, at: location(), reading: reading)
    }

    /// Decodes the one member of a value object: `kind` is its name (`stringValue`, …), `payload` its value. The
    /// general decoder above and the document-body reader (`documentFields(fromBody:)`) both come here, so each
    /// kind's rules live in this one place.
    init(
        firestoreKind kind: String, payload: JSONValue, at location: @autoclosure () -> String,
        reading: ValueReading = .written
    ) throws(HearthError) {
        func invalid(_ reason: String) -> HearthError {
            .invalidArgument("Invalid value at '\(location())': \(reason).")
        }
        switch kind {
        case "nullValue":
            guard payload == .null || payload == .string("NULL_VALUE") else { throw invalid("nullValue must be null") }
            self = .null
        case "booleanValue":
            guard case .bool(let flag) = payload else { throw invalid("booleanValue must be true or false") }
            self = .boolean(flag)
        case "integerValue":
            switch payload {
            case .integer(let integer): self = .integer(integer)
            case .string(let text):
                guard let integer = Int64(text) else {
                    throw invalid("integerValue \"\(text.prefix(40))\" is not a 64-bit integer")
                }
                self = .integer(integer)
            default: throw invalid("integerValue must be a string holding a 64-bit integer, e.g. \"42\"")
            }
        case "doubleValue":
            switch payload {
            case .double(let double): self = .double(double)
            case .integer(let integer): self = .double(Double(integer))
            case .string("NaN"): self = .double(.nan)
            case .string("Infinity"): self = .double(.infinity)
            case .string("-Infinity"): self = .double(-.infinity)
            case .string(let text):
                guard let double = Double(text), !text.isEmpty else {
                    throw invalid("doubleValue \"\(text.prefix(40))\" is not a number")
                }
                self = .double(double)
            default: throw invalid("doubleValue must be a number or \"NaN\", \"Infinity\", \"-Infinity\"")
            }
        case "timestampValue":
            guard case .string(let text) = payload, let timestamp = Timestamp(rfc3339: text) else {
                throw invalid(
                    "timestampValue must be an RFC 3339 time between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, e.g. \"2024-05-01T12:00:00Z\""
                )
            }
            self = .timestamp(reading.truncatesTimestamps ? timestamp.truncatedToMicroseconds : timestamp)
        case "stringValue":
            guard case .string(let text) = payload else { throw invalid("stringValue must be a string") }
            self = .string(text)
        case "bytesValue":
            guard case .string(let text) = payload, let bytes = Base64URL.decode(text) else {
                throw invalid("bytesValue must be base64 text")
            }
            self = .bytes(bytes)
        case "referenceValue":
            guard case .string(let text) = payload else { throw invalid(Self.referenceRule) }
            try Self.checkReference(text, reading: reading, at: location())
            self = .reference(text)
        case "geoPointValue":
            guard case .object(let point) = payload, Set(point.keys).isSubset(of: ["latitude", "longitude"]) else {
                throw invalid("geoPointValue must be {\"latitude\": number, \"longitude\": number}")
            }
            func coordinate(_ name: String) throws(HearthError) -> Double {
                switch point[name] {
                case nil, .null?: return 0
                case .integer(let number)?: return Double(number)
                case .double(let number)?: return number
                default: throw invalid("geoPointValue.\(name) must be a number")
                }
            }
            let latitude = try coordinate("latitude")
            let longitude = try coordinate("longitude")
            try Self.checkGeoPoint(latitude: latitude, longitude: longitude, at: location())
            self = .geoPoint(latitude: latitude, longitude: longitude)
        case "arrayValue":
            guard case .object(let array) = payload, Set(array.keys).isSubset(of: ["values"]) else {
                throw invalid("arrayValue must be {\"values\": [ … ]}")
            }
            var elements: [Value] = []
            switch array["values"] {
            case nil, .null?: break
            case .array(let items)?:
                elements.reserveCapacity(items.count)
                for (index, item) in items.enumerated() {
                    let element = try Value(
                        firestoreJSON: item, at: "\(location())[\(index)]", reading: reading)
                    if case .array = element {
                        throw .invalidArgument(
                            "Invalid value at '\(location())[\(index)]': an array cannot directly contain another array; wrap it in a map."
                        )
                    }
                    elements.append(element)
                }
            default: throw invalid("arrayValue.values must be a list")
            }
            self = .array(elements)
        case "mapValue":
            guard case .object(let map) = payload, Set(map.keys).isSubset(of: ["fields"]) else {
                throw invalid("mapValue must be {\"fields\": { … }}")
            }
            switch map["fields"] {
            case nil, .null?: self = .map([:])
            case let fields?:
                self = .map(try Value.decodeFields(fields, at: location(), reading: reading))
            }
        default:
            // Proto3 JSON also accepts the `.proto` name of the kind (`string_value`).
            let jsonName = ProtoFieldName.jsonName(kind)
            guard jsonName != kind else {
                throw .invalidArgument(
                    "Invalid JSON payload received. Unknown name \"\(kind.prefix(64))\" at '\(location())': Cannot find field."
                )
            }
            try self.init(firestoreKind: jsonName, payload: payload, at: location(), reading: reading)
        }
    }

    /// Decodes a `fields` object (`{"name": {"stringValue": …}, …}`) into a field map.
    public static func decodeFields(
        _ json: JSONValue, at location: @autoclosure () -> String
    ) throws(HearthError) -> [String: Value] {
        try decodeFields(json, at: location(), reading: .written)
    }

    /// Decodes a `fields` object Hearth stored or served itself: field names were checked when the document was
    /// written, and are not checked again, so a document holding a name that a later rule reserves (a transform on
    /// `__name__` was once accepted) stays readable instead of failing every query over its collection.
    public static func decodeStoredFields(_ json: JSONValue) throws(HearthError) -> [String: Value] {
        try decodeFields(json, at: "", reading: .stored)
    }

    private static func decodeFields(
        _ json: JSONValue, at location: @autoclosure () -> String, reading: ValueReading
    ) throws(HearthError) -> [String: Value] {
        guard case .object(let object) = json else {
            throw .invalidArgument(
                "Invalid value at '\(location())': fields must be an object of field names to values.")
        }
        var fields: [String: Value] = [:]
        fields.reserveCapacity(object.count)
        for (name, item) in object {
            if reading.checksNames { try validateFieldName(name, at: Self.join(location(), name)) }
            fields[name] = try Value(firestoreJSON: item, at: Self.join(location(), name), reading: reading)
        }
        return fields
    }

    private static func join(_ base: String, _ name: String) -> String {
        base.isEmpty ? name : "\(base).\(name)"
    }

    /// Checks a field name against Firestore's rules: not empty, at most 1,500 bytes, not `__.*__`.
    public static func validateFieldName(_ name: String, at location: @autoclosure () -> String) throws(HearthError) {
        if name.isEmpty {
            throw .invalidArgument("Invalid field name at '\(location())': field names cannot be empty.")
        }
        if name.utf8.count > 1500 {
            throw .invalidArgument(
                "Invalid field name at '\(location().prefix(64))…': field names are at most 1500 bytes.")
        }
        // The byte test first: every field of every write passes here, and few names start with `_`.
        if name.utf8.first == UInt8(ascii: "_") && name.hasPrefix("__") && name.hasSuffix("__") && name.utf8.count >= 4
        {
            throw .invalidArgument(
                "Invalid field name \"\(name)\" at '\(location())': names matching __.*__ are reserved.")
        }
    }

}

extension Value {
    /// Appends this value's Firestore typed JSON to `buffer`.
    public func appendFirestoreJSON(to buffer: inout [UInt8]) {
        switch self {
        case .null:
            JSONWriter.appendASCII(#"{"nullValue":null}"#, into: &buffer)
        case .boolean(let flag):
            JSONWriter.appendASCII(flag ? #"{"booleanValue":true}"# : #"{"booleanValue":false}"#, into: &buffer)
        case .integer(let integer):
            JSONWriter.appendASCII(#"{"integerValue":""#, into: &buffer)
            JSONWriter.appendInteger(integer, into: &buffer)
            JSONWriter.appendASCII(#""}"#, into: &buffer)
        case .double(let double):
            JSONWriter.appendASCII(#"{"doubleValue":"#, into: &buffer)
            Self.appendDouble(double, to: &buffer)
            buffer.append(UInt8(ascii: "}"))
        case .timestamp(let timestamp):
            JSONWriter.appendASCII(#"{"timestampValue":""#, into: &buffer)
            timestamp.appendRFC3339(to: &buffer)
            JSONWriter.appendASCII(#""}"#, into: &buffer)
        case .string(let string):
            JSONWriter.appendASCII(#"{"stringValue":"#, into: &buffer)
            JSONWriter.appendString(string, into: &buffer)
            buffer.append(UInt8(ascii: "}"))
        case .bytes(let bytes):
            JSONWriter.appendASCII(#"{"bytesValue":""#, into: &buffer)
            buffer.append(contentsOf: Data(bytes).base64EncodedString().utf8)
            JSONWriter.appendASCII(#""}"#, into: &buffer)
        case .reference(let name):
            JSONWriter.appendASCII(#"{"referenceValue":"#, into: &buffer)
            JSONWriter.appendString(name, into: &buffer)
            buffer.append(UInt8(ascii: "}"))
        case .geoPoint(let latitude, let longitude):
            JSONWriter.appendASCII(#"{"geoPointValue":{"latitude":"#, into: &buffer)
            Self.appendDouble(latitude, to: &buffer)
            JSONWriter.appendASCII(#","longitude":"#, into: &buffer)
            Self.appendDouble(longitude, to: &buffer)
            JSONWriter.appendASCII("}}", into: &buffer)
        case .array(let elements):
            if elements.isEmpty {
                JSONWriter.appendASCII(#"{"arrayValue":{}}"#, into: &buffer)
                return
            }
            JSONWriter.appendASCII(#"{"arrayValue":{"values":["#, into: &buffer)
            for (index, element) in elements.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                element.appendFirestoreJSON(to: &buffer)
            }
            JSONWriter.appendASCII("]}}", into: &buffer)
        case .map(let fields):
            if fields.isEmpty {
                JSONWriter.appendASCII(#"{"mapValue":{}}"#, into: &buffer)
                return
            }
            JSONWriter.appendASCII(#"{"mapValue":{"fields":"#, into: &buffer)
            Self.appendFields(fields, to: &buffer)
            JSONWriter.appendASCII("}}", into: &buffer)
        }
    }

    /// Appends a field map as a Firestore `fields` object, keys in UTF-8 byte order so output is deterministic.
    public static func appendFields(_ fields: [String: Value], to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        // The members are sorted rather than the names, so no value is looked up (hashed) again.
        let members = fields.sorted { Value.compareBytes($0.key.utf8, $1.key.utf8) < 0 }
        for (index, member) in members.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(member.key, into: &buffer)
            buffer.append(UInt8(ascii: ":"))
            member.value.appendFirestoreJSON(to: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// The Firestore `fields` JSON of a field map.
    public static func encodeFields(_ fields: [String: Value]) -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(64 * max(fields.count, 1))
        appendFields(fields, to: &buffer)
        return buffer
    }

    private static func appendDouble(_ double: Double, to buffer: inout [UInt8]) {
        if double.isNaN {
            JSONWriter.appendASCII(#""NaN""#, into: &buffer)
        } else if double.isInfinite {
            JSONWriter.appendASCII(double < 0 ? #""-Infinity""# : #""Infinity""#, into: &buffer)
        } else {
            JSONWriter.appendDouble(double, into: &buffer)
        }
    }
}
