public import HearthCore
public import HearthStore

extension FirestoreRPC {
    /// `BeginTransactionRequest`: `database = 1`, `options = 2`.
    public struct BeginTransactionRequest: Sendable, Equatable {
        /// The database.
        public var database: DatabaseName
        /// The kind of transaction (read-write unless `options.read_only` is given).
        public var mode: TransactionMode

        /// A request.
        public init(database: DatabaseName, mode: TransactionMode = .readWrite) {
            self.database = database
            self.mode = mode
        }

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var databaseName = ""
            var mode = TransactionMode.readWrite
            while let tag = try reader.nextTag() {
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): databaseName = try reader.readString()
                case (2, .lengthDelimited):
                    mode = try FirestoreRPC.transactionMode(try reader.readMessage(), at: "options")
                default: try reader.skip(tag)
                }
            }
            self.init(database: try FirestoreRPC.database(named: databaseName, at: "database"), mode: mode)
        }

        /// The message's bytes (options always written, so the mode survives a round trip).
        public var protobuf: [UInt8] {
            var writer = ProtoWriter()
            writer.writeString(1, database.description)
            writer.writeMessage(2) { FirestoreRPC.writeTransactionMode(mode, to: &$0) }
            return writer.bytes
        }
    }

    /// The bytes of a `BeginTransactionResponse`: `transaction = 1`.
    public static func beginTransactionResponse(_ transaction: TransactionID) -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeNonEmptyBytes(1, transaction.bytes)
        return writer.bytes
    }

    /// `RollbackRequest`: `database = 1`, `transaction = 2`.
    public struct RollbackRequest: Sendable, Equatable {
        /// The database.
        public var database: DatabaseName
        /// The transaction abandoned.
        public var transaction: TransactionID

        /// A request.
        public init(database: DatabaseName, transaction: TransactionID) {
            self.database = database
            self.transaction = transaction
        }

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var databaseName = ""
            var transaction: [UInt8] = []
            while let tag = try reader.nextTag() {
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): databaseName = try reader.readString()
                case (2, .lengthDelimited): transaction = try reader.readBytes()
                default: try reader.skip(tag)
                }
            }
            self.init(
                database: try FirestoreRPC.database(named: databaseName, at: "database"),
                transaction: try FirestoreRPC.transaction(transaction))
        }

        /// The message's bytes.
        public var protobuf: [UInt8] {
            var writer = ProtoWriter()
            writer.writeString(1, database.description)
            writer.writeBytes(2, transaction.bytes)
            return writer.bytes
        }
    }
}
