extension Value {
    /// The fields of a Firestore `Document` request body shaped exactly `{"fields":{…}}` (what a create or a patch
    /// sends), read straight from the bytes, or `nil` for any other shape, invalid JSON or an invalid field.
    ///
    /// The general reading, `JSONParser` then `decodeFields`, builds a dictionary for every value object, which cost
    /// more than the rest of handling a create. `nil` means "read it the general way", which then gives the same
    /// fields or the exact error: this reader accepts nothing the general way rejects (same scanner, same depth limit,
    /// duplicate names refused) and decodes each value through the same `init(firestoreKind:payload:at:)`.
    public static func documentFields(fromBody body: [UInt8]) -> [String: Value]? {
        documentFields(fromBody: body, options: JSONParser.Options())
    }

    static func documentFields(fromBody body: [UInt8], options: JSONParser.Options) -> [String: Value]? {
        body.withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes: bytes, options: options)
            return scanner.readDocumentFields()
        }
    }
}

extension JSONScanner {
    /// Reads `{"fields":{"name":{"kind":payload},…}}` and nothing after it; `nil` at the first thing that is not
    /// exactly that.
    mutating func readDocumentFields() -> [String: Value]? {
        index = JSONUTF8.byteOrderMarkLength(in: bytes)
        guard take(UInt8(ascii: "{")), takeString() == "fields", take(UInt8(ascii: ":")), take(UInt8(ascii: "{"))
        else { return nil }
        var fields: [String: Value] = [:]
        fields.reserveCapacity(8)
        if !take(UInt8(ascii: "}")) {
            repeat {
                guard let name = takeString(), take(UInt8(ascii: ":")), take(UInt8(ascii: "{")),
                    let kind = takeString(), take(UInt8(ascii: ":"))
                else { return nil }
                // The body, `fields` and the value object are open around the payload.
                enclosingDepth = 3
                guard let payload = try? parseValue(), take(UInt8(ascii: "}")),
                    (try? Value.validateFieldName(name, at: "")) != nil,
                    let value = try? Value(firestoreKind: kind, payload: payload, at: ""),
                    fields.updateValue(value, forKey: name) == nil
                else { return nil }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")) else { return nil }
        }
        guard take(UInt8(ascii: "}")) else { return nil }
        skipWhitespace()
        return index == bytes.count ? fields : nil
    }

    /// Skips whitespace and consumes `byte` if it comes next.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Skips whitespace and reads a string if one comes next.
    private mutating func takeString() -> String? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        return try? parseString()
    }
}
