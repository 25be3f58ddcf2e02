/// `google.rpc.Status` in protobuf: how a gRPC answer's error (and a listen target's `cause`) travels.
extension HearthError {
    /// Writes the body of a `google.rpc.Status` message: `code = 1`, `message = 2` (no `details`).
    public func writeProtobufStatus(to writer: inout ProtoWriter) {
        writer.writeNonZeroInt32(1, Int32(code.rawValue))
        writer.writeNonEmptyString(2, message)
    }

    /// Decodes a `google.rpc.Status` message; a code this server does not know becomes `UNKNOWN`, as gRPC reads it.
    public init(protobufStatus message: ProtoReader) throws(HearthError) {
        var reader = message
        var number: Int32 = 0
        var text = ""
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .varint): number = try reader.readInt32()
            case (2, .lengthDelimited): text = try reader.readString()
            default: try reader.skip(tag)
            }
        }
        self.init(ErrorCode.all.first { $0.rawValue == Int(number) } ?? .unknown, text)
    }
}
