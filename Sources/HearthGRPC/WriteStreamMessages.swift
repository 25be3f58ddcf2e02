public import HearthCore
public import HearthStore

extension FirestoreRPC {
    /// One message of a `Write` stream from the client (`google.firestore.v1.WriteRequest`): `database = 1`,
    /// `stream_id = 2`, `writes = 3`, `stream_token = 4`; `labels = 5` is read and ignored.
    public struct WriteStreamRequest: Sendable, Equatable {
        /// The database written.
        public var database: DatabaseName
        /// The stream's ID (only on a reconnecting first message; empty otherwise).
        public var streamID: String
        /// The writes, committed atomically; none in the handshake.
        public var writes: [Write]
        /// The token of the last response the client received (empty in the handshake).
        public var streamToken: [UInt8]

        /// A message.
        public init(database: DatabaseName, streamID: String = "", writes: [Write] = [], streamToken: [UInt8] = []) {
            self.database = database
            self.streamID = streamID
            self.writes = writes
            self.streamToken = streamToken
        }

        /// Decodes the message. `stream` is the database the stream's first message named: later messages may leave
        /// `database` out, as the mobile SDKs do ("only required in the first message").
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8], stream: DatabaseName? = nil) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var databaseName = ""
            var streamID = ""
            var writeMessages: [ProtoReader] = []
            var token: [UInt8] = []
            while let tag = try reader.nextTag() {
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): databaseName = try reader.readString()
                case (2, .lengthDelimited): streamID = try reader.readString()
                case (3, .lengthDelimited): writeMessages.append(try reader.readMessage())
                case (4, .lengthDelimited): token = try reader.readBytes()
                default: try reader.skip(tag)
                }
            }
            let database =
                if databaseName.isEmpty, let stream {
                    stream
                } else {
                    try FirestoreRPC.database(named: databaseName, at: "database")
                }
            var writes: [Write] = []
            for (index, message) in writeMessages.enumerated() {
                writes.append(try Write(protobuf: message, at: "writes[\(index)]", database: database))
            }
            self.init(database: database, streamID: streamID, writes: writes, streamToken: token)
        }

        /// The message's bytes.
        public var protobuf: [UInt8] {
            var writer = ProtoWriter()
            writer.writeString(1, database.description)
            writer.writeNonEmptyString(2, streamID)
            for write in writes { writer.writeMessage(3) { write.writeProtobuf(to: &$0, database: database) } }
            writer.writeNonEmptyBytes(4, streamToken)
            return writer.bytes
        }
    }

    /// The bytes of a `WriteResponse`: `stream_id = 1`, `stream_token = 2`, `write_results = 3`, `commit_time = 4`
    /// (the handshake's answer has no results and no commit time).
    public static func writeStreamResponse(
        streamID: String, streamToken: [UInt8], commit: CommitResult?
    ) -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeNonEmptyString(1, streamID)
        writer.writeNonEmptyBytes(2, streamToken)
        if let commit {
            for result in commit.writeResults { writer.writeMessage(3) { writeResult(result, to: &$0) } }
            writer.writeMessage(4) { commit.commitTime.writeProtobuf(to: &$0) }
        }
        return writer.bytes
    }
}
