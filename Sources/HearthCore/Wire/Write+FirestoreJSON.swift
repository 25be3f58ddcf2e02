extension Write {
    /// Decodes a Firestore REST `Write` object (`update`, `delete` or `transform`, with `updateMask`,
    /// `updateTransforms` and `currentDocument`).
    /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
    public init(firestoreJSON json: JSONValue, at location: String, database: DatabaseName) throws(HearthError) {
        let reader = try JSONObjectReader(
            json, at: location,
            allowed: ["update", "delete", "transform", "updateMask", "updateTransforms", "currentDocument"])
        let operations = ["update", "delete", "transform"].filter { reader[$0] != nil }
        guard operations.count == 1 else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a write has exactly one of update, delete or transform; found \(operations.isEmpty ? "none" : operations.joined(separator: ", "))."
            )
        }
        var transforms: [FieldTransform] = []
        if let items = try reader.array("updateTransforms") {
            for (index, item) in items.enumerated() {
                transforms.append(
                    try FieldTransform(firestoreJSON: item, at: "\(reader.location(of: "updateTransforms"))[\(index)]"))
            }
        }
        let precondition = try reader["currentDocument"].map { json throws(HearthError) in
            try Precondition(firestoreJSON: json, at: reader.location(of: "currentDocument"))
        }
        switch operations[0] {
        case "update":
            let document = try JSONObjectReader(
                reader["update"]!, at: reader.location(of: "update"),
                allowed: ["name", "fields", "createTime", "updateTime"])
            guard let name = try document.string("name") else {
                throw .invalidArgument("Invalid value at '\(document.location)': an update needs the document's name.")
            }
            let path = try database.path(fromName: name)
            let fields =
                try document["fields"].map { json throws(HearthError) in
                    try Value.decodeFields(json, at: document.location(of: "fields"))
                } ?? [:]
            var mask: [FieldPath]?
            if let maskJSON = reader["updateMask"] {
                mask = try FieldPath.mask(firestoreJSON: maskJSON, at: reader.location(of: "updateMask"))
            }
            self.init(
                path: path, operation: .update(fields: fields, mask: mask), transforms: transforms,
                precondition: precondition)
        case "delete":
            guard let name = try reader.string("delete") else {
                throw .invalidArgument("Invalid value at '\(location).delete'.")
            }
            guard reader["updateMask"] == nil else {
                throw .invalidArgument("Invalid value at '\(location)': a delete cannot have an updateMask.")
            }
            self.init(
                path: try database.path(fromName: name), operation: .delete, transforms: transforms,
                precondition: precondition)
        default:
            let transform = try JSONObjectReader(
                reader["transform"]!, at: reader.location(of: "transform"), allowed: ["document", "fieldTransforms"])
            guard let name = try transform.string("document") else {
                throw .invalidArgument(
                    "Invalid value at '\(transform.location)': a transform needs its document's name.")
            }
            for (index, item) in (try transform.array("fieldTransforms") ?? []).enumerated() {
                transforms.append(
                    try FieldTransform(
                        firestoreJSON: item, at: "\(transform.location(of: "fieldTransforms"))[\(index)]"))
            }
            self.init(
                path: try database.path(fromName: name), operation: .transform, transforms: transforms,
                precondition: precondition)
        }
    }
}

extension Precondition {
    /// Decodes `currentDocument`: `{"exists": bool}` or `{"updateTime": "RFC 3339"}`.
    public init(firestoreJSON json: JSONValue, at location: String) throws(HearthError) {
        let reader = try JSONObjectReader(json, at: location, allowed: ["exists", "updateTime"])
        if let exists = try reader.bool("exists") {
            guard reader["updateTime"] == nil else {
                throw .invalidArgument("Invalid value at '\(location)': give exists or updateTime, not both.")
            }
            self = .exists(exists)
        } else if let text = try reader.string("updateTime") {
            guard let time = Timestamp(rfc3339: text) else {
                throw .invalidArgument(
                    "Invalid value at '\(location).updateTime': \"\(text.prefix(40))\" is not an RFC 3339 time.")
            }
            self = .updateTime(time)
        } else {
            throw .invalidArgument("Invalid value at '\(location)': a precondition needs exists or updateTime.")
        }
    }

    /// Reads a precondition from query parameters (`currentDocument.exists`, `currentDocument.updateTime`).
    public init?(exists: String?, updateTime: String?) throws(HearthError) {
        switch (exists, updateTime) {
        case (nil, nil):
            return nil
        case (let flag?, nil):
            guard flag == "true" || flag == "false" else {
                throw .invalidArgument(
                    "Invalid value for currentDocument.exists: \"\(flag.prefix(20))\"; use true or false.")
            }
            self = .exists(flag == "true")
        case (nil, let text?):
            guard let time = Timestamp(rfc3339: text) else {
                throw .invalidArgument(
                    "Invalid value for currentDocument.updateTime: \"\(text.prefix(40))\" is not an RFC 3339 time.")
            }
            self = .updateTime(time)
        default:
            throw .invalidArgument("Give currentDocument.exists or currentDocument.updateTime, not both.")
        }
    }
}

extension FieldTransform {
    /// Decodes a `FieldTransform`: `fieldPath` and one of `setToServerValue`, `increment`, `maximum`, `minimum`,
    /// `appendMissingElements`, `removeAllFromArray`.
    public init(firestoreJSON json: JSONValue, at location: String) throws(HearthError) {
        let kinds: Set<String> = [
            "setToServerValue", "increment", "maximum", "minimum", "appendMissingElements", "removeAllFromArray",
        ]
        let reader = try JSONObjectReader(json, at: location, allowed: kinds.union(["fieldPath"]))
        guard let pathText = try reader.string("fieldPath") else {
            throw .invalidArgument("Invalid value at '\(location)': a field transform needs a fieldPath.")
        }
        let path = try FieldPath(parsing: pathText)
        // A transform stores its result under its path, so the path is held to the names a document's fields may
        // have: a transform on `__name__` would otherwise store a field every later query over the collection trips on.
        for segment in path.segments {
            try Value.validateFieldName(segment, at: reader.location(of: "fieldPath"))
        }
        let present = kinds.filter { reader[$0] != nil }
        guard present.count == 1, let kind = present.first else {
            throw .invalidArgument(
                "Invalid value at '\(location)': a field transform has exactly one of setToServerValue, increment, maximum, minimum, appendMissingElements, removeAllFromArray."
            )
        }
        let member = reader.location(of: kind)
        func elements() throws(HearthError) -> [Value] {
            let array = try JSONObjectReader(reader[kind]!, at: member, allowed: ["values"])
            var values: [Value] = []
            for (index, item) in (try array.array("values") ?? []).enumerated() {
                values.append(try Value(firestoreJSON: item, at: "\(member).values[\(index)]"))
            }
            return values
        }
        switch kind {
        case "setToServerValue":
            // Proto3 JSON gives the enum by name or by number (REQUEST_TIME is 1).
            guard let value = reader[kind],
                value == .string("REQUEST_TIME") || value == .integer(1) || value == .double(1)
            else {
                throw .invalidArgument("Invalid value at '\(member)': the only server value is \"REQUEST_TIME\".")
            }
            self.init(fieldPath: path, kind: .serverTimestamp)
        case "increment":
            self.init(fieldPath: path, kind: .increment(try Value(firestoreJSON: reader[kind]!, at: member)))
        case "maximum": self.init(fieldPath: path, kind: .maximum(try Value(firestoreJSON: reader[kind]!, at: member)))
        case "minimum": self.init(fieldPath: path, kind: .minimum(try Value(firestoreJSON: reader[kind]!, at: member)))
        case "appendMissingElements": self.init(fieldPath: path, kind: .appendMissingElements(try elements()))
        default: self.init(fieldPath: path, kind: .removeAllFromArray(try elements()))
        }
    }
}

extension FieldPath {
    /// Decodes a `DocumentMask` (`{"fieldPaths": [ … ]}`).
    public static func mask(firestoreJSON json: JSONValue, at location: String) throws(HearthError) -> [FieldPath] {
        let reader = try JSONObjectReader(json, at: location, allowed: ["fieldPaths"])
        var paths: [FieldPath] = []
        for text in try reader.strings("fieldPaths") ?? [] { paths.append(try FieldPath(parsing: text)) }
        return paths
    }
}
