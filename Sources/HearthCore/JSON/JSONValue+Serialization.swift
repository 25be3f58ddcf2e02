extension JSONValue {
    /// This value as UTF-8 JSON with keys sorted by their UTF-8 bytes, so equal values always give equal bytes.
    public func serialized(pretty: Bool = false) -> [UInt8] {
        var buffer: [UInt8] = []
        JSONWriter.write(self, into: &buffer, pretty: pretty)
        return buffer
    }

    /// This value as compact JSON text with sorted keys.
    public var jsonString: String {
        String(decoding: serialized(), as: UTF8.self)
    }
}
