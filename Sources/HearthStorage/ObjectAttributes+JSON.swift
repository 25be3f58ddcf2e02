public import HearthCore

extension ObjectAttributes {
    /// The fields as Firebase's and Cloud Storage's metadata JSON names them (`contentType`, `metadata`, …).
    public var json: [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        if let contentType { fields["contentType"] = .string(contentType) }
        if let cacheControl { fields["cacheControl"] = .string(cacheControl) }
        if let contentDisposition { fields["contentDisposition"] = .string(contentDisposition) }
        if let contentEncoding { fields["contentEncoding"] = .string(contentEncoding) }
        if let contentLanguage { fields["contentLanguage"] = .string(contentLanguage) }
        if !custom.isEmpty { fields["metadata"] = .object(custom.mapValues { .string($0) }) }
        return fields
    }

    /// Applies a metadata JSON object: a present field sets its value, `null` clears it, an absent one stays; in
    /// `metadata`, a key set to `null` is removed.
    ///
    /// - Throws: `INVALID_ARGUMENT` for a field of the wrong type.
    public mutating func apply(_ fields: [String: JSONValue]) throws(HearthError) {
        func text(_ key: String, _ keyPath: WritableKeyPath<ObjectAttributes, String?>) throws(HearthError) {
            switch fields[key] {
            case nil: break
            case .null?: self[keyPath: keyPath] = nil
            case .string(let value)?: self[keyPath: keyPath] = value
            default: throw .invalidArgument("Metadata field \(key) must be a string.")
            }
        }
        try text("contentType", \.contentType)
        try text("cacheControl", \.cacheControl)
        try text("contentDisposition", \.contentDisposition)
        try text("contentEncoding", \.contentEncoding)
        try text("contentLanguage", \.contentLanguage)
        switch fields["metadata"] {
        case nil: break
        case .null?: custom = [:]
        case .object(let entries)?:
            for (key, value) in entries {
                switch value {
                case .null: custom[key] = nil
                case .string(let text): custom[key] = text
                case .integer(let number): custom[key] = String(number)
                case .bool(let flag): custom[key] = String(flag)
                case .double(let number): custom[key] = String(number)
                default: throw .invalidArgument("Custom metadata \(key) must be a string.")
                }
            }
        default: throw .invalidArgument("Metadata field metadata must be an object of strings.")
        }
    }
}
