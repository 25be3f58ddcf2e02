public import HearthCore
public import HearthStore

/// The messages of the `google.firestore.v1.Firestore` gRPC service, as requests and answers over the model the
/// REST API uses (``Write``, ``StructuredQuery``, ``ListenRequest``, ``CommitResult``, …): one model, two
/// encodings. Each request decodes from, and encodes to, protobuf wire format; each answer encodes to it.
public enum FirestoreRPC {
    /// How a read request chooses what it sees (the `consistency_selector` oneof).
    public enum ReadConsistency: Sendable, Equatable {
        /// The latest committed state (nothing given).
        case latest
        /// Inside an open transaction.
        case transaction(TransactionID)
        /// Inside a transaction this request begins; the first answer names it.
        case newTransaction(TransactionMode)
        /// At a past time (Hearth answers `UNIMPLEMENTED`; it keeps no old versions).
        case readTime(Timestamp)
    }

    /// Parses `projects/{project}/databases/{database}`.
    /// - Throws: `INVALID_ARGUMENT` for anything else.
    public static func database(named name: String, at location: String) throws(HearthError) -> DatabaseName {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "projects", parts[2] == "databases", !parts[1].isEmpty, !parts[3].isEmpty
        else {
            throw .invalidArgument(
                "Invalid value at '\(location)': \"\(name.prefix(200))\" is not a database name, projects/{project}/databases/{database}."
            )
        }
        return DatabaseName(project: String(parts[1]), database: String(parts[3]))
    }

    /// The database and path of a full resource name under `…/documents` (a document, a collection's parent, or
    /// the documents root itself).
    public static func path(named name: String, at location: String) throws(HearthError) -> (DatabaseName, ResourcePath)
    {
        let parts = name.split(separator: "/", maxSplits: 5, omittingEmptySubsequences: false)
        guard parts.count >= 5, parts[4] == "documents" else {
            throw .invalidArgument(
                "Invalid value at '\(location)': \"\(name.prefix(200))\" is not a name under projects/{project}/databases/{database}/documents."
            )
        }
        let database = try Self.database(named: parts[0..<4].joined(separator: "/"), at: location)
        return (database, try database.path(fromName: name))
    }

    /// Decodes `TransactionOptions`: `read_only = 2` or `read_write = 3` (read-write when neither is given).
    static func transactionMode(_ message: ProtoReader, at location: String) throws(HearthError) -> TransactionMode {
        var reader = message
        var mode = TransactionMode.readWrite
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (2, .lengthDelimited):
                var readOnly = try reader.readMessage()
                while let inner = try readOnly.nextTag() {
                    if inner.number == 2 {
                        throw HearthError(
                            .unimplemented,
                            "\(location).readOnly.readTime is not supported: Hearth reads the latest committed state.")
                    }
                    try readOnly.skip(inner)
                }
                mode = .readOnly
            case (3, .lengthDelimited):
                // `retry_transaction` and `concurrency_mode` change nothing: commits are checked optimistically.
                _ = try reader.readMessage()
                mode = .readWrite
            default: try reader.skip(tag)
            }
        }
        return mode
    }

    /// Writes the body of `TransactionOptions`.
    static func writeTransactionMode(_ mode: TransactionMode, to writer: inout ProtoWriter) {
        writer.writeMessage(mode == .readOnly ? 2 : 3) { _ in }
    }

    /// Reads one member of a `consistency_selector` oneof into `consistency`; false when `tag` is not one.
    static func readConsistency(
        _ tag: ProtoTag, numbers: (transaction: Int, newTransaction: Int?, readTime: Int),
        from reader: inout ProtoReader, into consistency: inout ReadConsistency
    ) throws(HearthError) -> Bool {
        guard tag.wireType == .lengthDelimited else { return false }
        switch tag.number {
        case numbers.transaction:
            consistency = .transaction(try transaction(try reader.readBytes()))
        case numbers.newTransaction:
            consistency = .newTransaction(try transactionMode(try reader.readMessage(), at: "newTransaction"))
        case numbers.readTime:
            consistency = .readTime(try Timestamp(protobuf: try reader.readMessage(), at: "readTime"))
        default:
            return false
        }
        return true
    }

    /// Writes the member of a `consistency_selector` oneof.
    static func writeConsistency(
        _ consistency: ReadConsistency, numbers: (transaction: Int, newTransaction: Int?, readTime: Int),
        to writer: inout ProtoWriter
    ) {
        switch consistency {
        case .latest: break
        case .transaction(let id): writer.writeBytes(numbers.transaction, id.bytes)
        case .newTransaction(let mode):
            if let number = numbers.newTransaction {
                writer.writeMessage(number) { writeTransactionMode(mode, to: &$0) }
            }
        case .readTime(let time): writer.writeMessage(numbers.readTime) { time.writeProtobuf(to: &$0) }
        }
    }

    /// A transaction ID as sent: any non-empty bytes.
    static func transaction(_ bytes: [UInt8]) throws(HearthError) -> TransactionID {
        guard !bytes.isEmpty else {
            throw .invalidArgument("Invalid transaction: pass the transaction returned by beginTransaction.")
        }
        return TransactionID(bytes: bytes)
    }
}
