public import HearthCore
public import HearthStore

extension FirestoreRPC {
    /// `CommitRequest`: `database = 1`, `writes = 2`, `transaction = 3`.
    public struct CommitRequest: Sendable, Equatable {
        /// The database written.
        public var database: DatabaseName
        /// The writes, applied atomically in order.
        public var writes: [Write]
        /// The transaction this commit ends, if any.
        public var transaction: TransactionID?

        /// A request.
        public init(database: DatabaseName, writes: [Write], transaction: TransactionID? = nil) {
            self.database = database
            self.writes = writes
            self.transaction = transaction
        }

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var databaseName = ""
            var writeMessages: [ProtoReader] = []
            var transaction: TransactionID?
            while let tag = try reader.nextTag() {
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): databaseName = try reader.readString()
                case (2, .lengthDelimited): writeMessages.append(try reader.readMessage())
                case (3, .lengthDelimited): transaction = try FirestoreRPC.transaction(try reader.readBytes())
                default: try reader.skip(tag)
                }
            }
            // The writes name documents of the database, which may come after them on the wire.
            let database = try FirestoreRPC.database(named: databaseName, at: "database")
            var writes: [Write] = []
            writes.reserveCapacity(writeMessages.count)
            for (index, message) in writeMessages.enumerated() {
                writes.append(try Write(protobuf: message, at: "writes[\(index)]", database: database))
            }
            self.init(database: database, writes: writes, transaction: transaction)
        }

        /// The message's bytes.
        public var protobuf: [UInt8] {
            var writer = ProtoWriter()
            writer.writeString(1, database.description)
            for write in writes { writer.writeMessage(2) { write.writeProtobuf(to: &$0, database: database) } }
            if let transaction { writer.writeBytes(3, transaction.bytes) }
            return writer.bytes
        }
    }

    /// Writes the body of a `WriteResult`: `update_time = 1`, `transform_results = 2`.
    static func writeResult(_ result: WriteResult, to writer: inout ProtoWriter) {
        if let updateTime = result.updateTime { writer.writeMessage(1) { updateTime.writeProtobuf(to: &$0) } }
        for value in result.transformResults { writer.writeMessage(2) { value.writeProtobuf(to: &$0) } }
    }

    /// The bytes of a `CommitResponse`: `write_results = 1`, `commit_time = 2`.
    public static func commitResponse(_ commit: CommitResult) -> [UInt8] {
        var writer = ProtoWriter()
        for result in commit.writeResults { writer.writeMessage(1) { writeResult(result, to: &$0) } }
        writer.writeMessage(2) { commit.commitTime.writeProtobuf(to: &$0) }
        return writer.bytes
    }
}
