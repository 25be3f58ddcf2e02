import HearthCore

/// The few `google.firestore.v1` messages the gRPC loads send, written with HearthCore's protobuf writer from the
/// published field numbers, and the one answer field they read back (a listened document's `update_time`).
///
/// The bench builds its own requests rather than going through HearthGRPC's request models so that what it sends
/// is what an outside client sends: if the server's decoder drifted, the loads fail with the server's status.
enum GRPCBenchMessages {
    /// The database every bench request names (the bench servers run in development mode with project `demo`).
    static let database = "projects/demo/databases/(default)"
    /// Development mode's owner credential, as the official clients send it to an emulator.
    static let metadata = [("authorization", "Bearer owner")]

    static let getDocument = "/google.firestore.v1.Firestore/GetDocument"
    static let commit = "/google.firestore.v1.Firestore/Commit"
    static let listen = "/google.firestore.v1.Firestore/Listen"

    /// `GetDocumentRequest { name = 1 }`.
    static func getDocument(path: String) -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeString(1, "\(database)/documents/\(path)")
        return writer.bytes
    }

    /// `CommitRequest { database = 1, writes = 2 }` with one `Write { update = 1 }` of the bench's document (the
    /// same three fields as the REST loads' `LuaScripts.fieldsJSON`): a set, no precondition.
    static func commitOneSet(path: String) -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeString(1, database)
        writer.writeMessage(2) { (write: inout ProtoWriter) in
            write.writeMessage(1) { (document: inout ProtoWriter) in
                document.writeString(1, "\(database)/documents/\(path)")
                // map<string, Value> fields = 2: one entry message per field, key = 1, value = 2.
                field(&document, "done") { $0.writeBool(1, false) }  // boolean_value = 1 (false written: set)
                field(&document, "n") { $0.writeInt64(2, 42) }  // integer_value = 2
                field(&document, "title") { $0.writeString(17, "hello") }  // string_value = 17
            }
        }
        return writer.bytes
    }

    /// `ListenRequest { database = 1, add_target = 2 { documents = 3 { documents = 2 }, target_id = 5 } }`.
    static func listen(documentPath: String, targetID: Int32) -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeString(1, database)
        writer.writeMessage(2) { (target: inout ProtoWriter) in
            target.writeMessage(3) { (documents: inout ProtoWriter) in
                documents.writeString(2, "\(database)/documents/\(documentPath)")
            }
            target.writeInt32(5, targetID)
        }
        return writer.bytes
    }

    /// From a `ListenResponse`, the `update_time` (wall-clock microseconds) of its `document_change = 3`'s
    /// `document = 1` (`update_time = 4`, a `Timestamp { seconds = 1, nanos = 2 }`); nil for any other response.
    static func changedDocumentUpdateTime(_ response: [UInt8]) throws -> Int64? {
        var reader = try ProtoReader(response)
        while let tag = try reader.nextTag() {
            guard tag.number == 3, tag.wireType == .lengthDelimited else {
                try reader.skip(tag)
                continue
            }
            var change = try reader.readMessage()
            while let changeTag = try change.nextTag() {
                guard changeTag.number == 1, changeTag.wireType == .lengthDelimited else {
                    try change.skip(changeTag)
                    continue
                }
                var document = try change.readMessage()
                while let documentTag = try document.nextTag() {
                    guard documentTag.number == 4, documentTag.wireType == .lengthDelimited else {
                        try document.skip(documentTag)
                        continue
                    }
                    var timestamp = try document.readMessage()
                    var seconds: Int64 = 0
                    var nanos: Int64 = 0
                    while let timeTag = try timestamp.nextTag() {
                        switch timeTag.number {
                        case 1: seconds = try timestamp.readInt64()
                        case 2: nanos = Int64(try timestamp.readInt32())
                        default: try timestamp.skip(timeTag)
                        }
                    }
                    return seconds * 1_000_000 + nanos / 1000
                }
            }
        }
        return nil
    }

    /// Whether a `ListenResponse` is a `target_change = 2` of type CURRENT (`target_change_type = 1`, value 3).
    static func isCurrent(_ response: [UInt8]) throws -> Bool {
        var reader = try ProtoReader(response)
        while let tag = try reader.nextTag() {
            guard tag.number == 2, tag.wireType == .lengthDelimited else {
                try reader.skip(tag)
                continue
            }
            var change = try reader.readMessage()
            while let changeTag = try change.nextTag() {
                guard changeTag.number == 1, changeTag.wireType == .varint else {
                    try change.skip(changeTag)
                    continue
                }
                return try change.readVarint() == 3
            }
        }
        return false
    }

    /// One `fields` map entry.
    private static func field(_ document: inout ProtoWriter, _ key: String, _ value: (inout ProtoWriter) -> Void) {
        document.writeMessage(2) { (entry: inout ProtoWriter) in
            entry.writeString(1, key)
            entry.writeMessage(2, value)
        }
    }
}
