public import HearthCore
public import HearthListen

extension FirestoreRPC {
    /// The bytes of a `ListenResponse`: `target_change = 2`, `document_change = 3`, `document_delete = 4`,
    /// `filter = 5` or `document_remove = 6`.
    /// - Throws: `INTERNAL` when a changed document's stored fields cannot be read.
    public static func listenResponse(_ response: ListenResponse) throws(HearthError) -> [UInt8] {
        var writer = ProtoWriter()
        switch response {
        case .targetChange(let change):
            writer.writeMessage(2) { writeTargetChange(change, to: &$0) }
        case .documentChange(let document, let targetIDs):
            try writer.writeMessage(3) { body throws(HearthError) in
                try body.writeMessage(1) { message throws(HearthError) in
                    try document.document.writeProtobuf(to: &message, database: document.database)
                }
                body.writePackedInt32(5, targetIDs)
            }
        case .documentDelete(let name, let removed, let readTime):
            writer.writeMessage(4) { body in
                body.writeString(1, name)
                body.writeMessage(4) { readTime.writeProtobuf(to: &$0) }
                body.writePackedInt32(6, removed)
            }
        case .filter(let targetID, let count):
            writer.writeMessage(5) { body in
                body.writeNonZeroInt32(1, targetID)
                body.writeNonZeroInt32(2, Int32(clamping: count))
            }
        case .documentRemove(let name, let removed, let readTime):
            writer.writeMessage(6) { body in
                body.writeString(1, name)
                body.writePackedInt32(2, removed)
                body.writeMessage(4) { readTime.writeProtobuf(to: &$0) }
            }
        }
        return writer.bytes
    }

    /// Writes the body of a `TargetChange`: `target_change_type = 1`, `target_ids = 2`, `cause = 3`,
    /// `resume_token = 4`, `read_time = 6`.
    static func writeTargetChange(_ change: TargetChange, to writer: inout ProtoWriter) {
        let type: Int32 =
            switch change.kind {
            case .noChange: 0
            case .add: 1
            case .remove: 2
            case .current: 3
            case .reset: 4
            }
        writer.writeNonZeroInt32(1, type)
        writer.writePackedInt32(2, change.targetIDs)
        if let cause = change.cause { writer.writeMessage(3) { cause.writeProtobufStatus(to: &$0) } }
        if let token = change.resumeToken { writer.writeBytes(4, resumeTokenBytes(token)) }
        if let time = change.readTime { writer.writeMessage(6) { time.writeProtobuf(to: &$0) } }
    }
}
