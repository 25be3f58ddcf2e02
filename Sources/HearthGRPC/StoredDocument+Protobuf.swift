public import HearthCore
public import HearthStore

extension StoredDocument {
    /// Writes the body of a `google.firestore.v1.Document` message: `name = 1`, `fields = 2` (only the `mask`
    /// paths when one is given), `create_time = 3`, `update_time = 4`.
    /// - Throws: `INTERNAL` when the stored fields cannot be read.
    public func writeProtobuf(
        to writer: inout ProtoWriter, database: DatabaseName, mask: [FieldPath]? = nil
    ) throws(HearthError) {
        // Stored fields are Firestore JSON; they are decoded here to be written as protobuf.
        var fields = try self.fields()
        if let mask { fields = fields.projected(onto: mask) }
        writer.writeString(1, database.name(of: path))
        Value.writeProtobufFields(fields, number: 2, to: &writer)
        writer.writeMessage(3) { createTime.writeProtobuf(to: &$0) }
        writer.writeMessage(4) { updateTime.writeProtobuf(to: &$0) }
    }
}
