public import HearthCore
public import HearthStore

extension FirestoreRPC {
    /// `GetDocumentRequest`: `name = 1`, `mask = 2`, `transaction = 3` or `read_time = 5`.
    public struct GetDocumentRequest: Sendable, Equatable {
        /// The document's database.
        public var database: DatabaseName
        /// The document read.
        public var path: ResourcePath
        /// The fields returned; `nil` for all.
        public var mask: [FieldPath]?
        /// What the read sees.
        public var consistency: ReadConsistency

        /// A request.
        public init(
            database: DatabaseName, path: ResourcePath, mask: [FieldPath]? = nil, consistency: ReadConsistency = .latest
        ) {
            self.database = database
            self.path = path
            self.mask = mask
            self.consistency = consistency
        }

        private static let numbers = (transaction: 3, newTransaction: Int?.none, readTime: 5)

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var name = ""
            var mask: [FieldPath]?
            var consistency = ReadConsistency.latest
            while let tag = try reader.nextTag() {
                if try FirestoreRPC.readConsistency(tag, numbers: Self.numbers, from: &reader, into: &consistency) {
                    continue
                }
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): name = try reader.readString()
                case (2, .lengthDelimited): mask = try FieldPath.mask(protobuf: try reader.readMessage())
                default: try reader.skip(tag)
                }
            }
            let (database, path) = try FirestoreRPC.path(named: name, at: "name")
            guard path.isDocument else {
                throw .invalidArgument("Invalid value at 'name': \"\(name.prefix(200))\" is not a document name.")
            }
            self.init(database: database, path: path, mask: mask, consistency: consistency)
        }

        /// The message's bytes.
        public var protobuf: [UInt8] {
            var writer = ProtoWriter()
            writer.writeString(1, database.name(of: path))
            if let mask { writer.writeMessage(2) { FieldPath.writeProtobufMask(mask, to: &$0) } }
            FirestoreRPC.writeConsistency(consistency, numbers: Self.numbers, to: &writer)
            return writer.bytes
        }
    }

    /// `BatchGetDocumentsRequest`: `database = 1`, `documents = 2`, `mask = 3`, and `transaction = 4`,
    /// `new_transaction = 5` or `read_time = 7`.
    public struct BatchGetDocumentsRequest: Sendable, Equatable {
        /// The database read.
        public var database: DatabaseName
        /// The documents, in request order (the answer may come in any order).
        public var documents: [ResourcePath]
        /// The fields returned; `nil` for all.
        public var mask: [FieldPath]?
        /// What the reads see.
        public var consistency: ReadConsistency

        /// A request.
        public init(
            database: DatabaseName, documents: [ResourcePath], mask: [FieldPath]? = nil,
            consistency: ReadConsistency = .latest
        ) {
            self.database = database
            self.documents = documents
            self.mask = mask
            self.consistency = consistency
        }

        private static let numbers = (transaction: 4, newTransaction: Int?.some(5), readTime: 7)

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var databaseName = ""
            var names: [String] = []
            var mask: [FieldPath]?
            var consistency = ReadConsistency.latest
            while let tag = try reader.nextTag() {
                if try FirestoreRPC.readConsistency(tag, numbers: Self.numbers, from: &reader, into: &consistency) {
                    continue
                }
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): databaseName = try reader.readString()
                case (2, .lengthDelimited): names.append(try reader.readString())
                case (3, .lengthDelimited): mask = try FieldPath.mask(protobuf: try reader.readMessage())
                default: try reader.skip(tag)
                }
            }
            let database = try FirestoreRPC.database(named: databaseName, at: "database")
            var paths: [ResourcePath] = []
            paths.reserveCapacity(names.count)
            for (index, name) in names.enumerated() {
                let path = try database.path(fromName: name)
                guard path.isDocument else {
                    throw .invalidArgument(
                        "Invalid value at 'documents[\(index)]': \"\(name.prefix(200))\" is not a document name.")
                }
                paths.append(path)
            }
            self.init(database: database, documents: paths, mask: mask, consistency: consistency)
        }

        /// The message's bytes.
        public var protobuf: [UInt8] {
            var writer = ProtoWriter()
            writer.writeString(1, database.description)
            for path in documents { writer.writeString(2, database.name(of: path)) }
            if let mask { writer.writeMessage(3) { FieldPath.writeProtobufMask(mask, to: &$0) } }
            FirestoreRPC.writeConsistency(consistency, numbers: Self.numbers, to: &writer)
            return writer.bytes
        }
    }

    /// The bytes of one `BatchGetDocumentsResponse`: `found = 1` (a document) or `missing = 2` (its name),
    /// `transaction = 3` (on the first answer of a new transaction), `read_time = 4`.
    public static func batchGetResponse(
        found document: StoredDocument?, missing path: ResourcePath, database: DatabaseName, mask: [FieldPath]?,
        transaction: TransactionID?, readTime: Timestamp
    ) throws(HearthError) -> [UInt8] {
        var writer = ProtoWriter()
        if let document {
            try writer.writeMessage(1) { body throws(HearthError) in
                try document.writeProtobuf(to: &body, database: database, mask: mask)
            }
        } else {
            writer.writeString(2, database.name(of: path))
        }
        if let transaction { writer.writeBytes(3, transaction.bytes) }
        writer.writeMessage(4) { readTime.writeProtobuf(to: &$0) }
        return writer.bytes
    }
}
