public import HearthCore
public import HearthStore

extension FirestoreRPC {
    /// `CreateDocumentRequest`: `parent = 1`, `collection_id = 2`, `document_id = 3` (a random ID when empty),
    /// `document = 4` (its `fields = 2`; a name is refused), `mask = 5`; decoded as the one-write commit a REST
    /// `POST` to a collection becomes, with the ID still to choose.
    public struct CreateDocumentRequest: Sendable, Equatable {
        /// The database written.
        public var database: DatabaseName
        /// The collection the document goes into.
        public var collection: ResourcePath
        /// The new document's ID; `nil` for a random one.
        public var documentID: String?
        /// The new document's fields.
        public var fields: [String: Value]
        /// The fields of the answer's document; `nil` for all.
        public var mask: [FieldPath]?

        /// A request.
        public init(
            database: DatabaseName, collection: ResourcePath, documentID: String? = nil, fields: [String: Value],
            mask: [FieldPath]? = nil
        ) {
            self.database = database
            self.collection = collection
            self.documentID = documentID
            self.fields = fields
            self.mask = mask
        }

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var parentName = ""
            var collectionID = ""
            var documentID = ""
            var document: ProtoReader?
            var mask: [FieldPath]?
            while let tag = try reader.nextTag() {
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): parentName = try reader.readString()
                case (2, .lengthDelimited): collectionID = try reader.readString()
                case (3, .lengthDelimited): documentID = try reader.readString()
                case (4, .lengthDelimited): document = try reader.readMessage()
                case (5, .lengthDelimited): mask = try FieldPath.mask(protobuf: try reader.readMessage())
                default: try reader.skip(tag)
                }
            }
            let (database, parent) = try FirestoreRPC.path(named: parentName, at: "parent")
            guard parent.segments.isEmpty || parent.isDocument else {
                throw .invalidArgument(
                    "Invalid value at 'parent': \"\(parentName.prefix(200))\" is not a document or the documents root.")
            }
            try ResourcePath.validate(id: collectionID, in: "collection_id")
            let collection = parent.appending(collectionID)
            if !documentID.isEmpty {
                try ResourcePath.validate(id: documentID, in: "\(collection)/\(documentID)")
            }
            var fields: [String: Value] = [:]
            if let document {
                var names = document
                while let tag = try names.nextTag() {
                    guard tag.number == 1, tag.wireType == .lengthDelimited else {
                        try names.skip(tag)
                        continue
                    }
                    if !(try names.readString()).isEmpty {
                        throw .invalidArgument(
                            "Invalid value at 'document.name': a document to create is named by collection_id and document_id, not by name."
                        )
                    }
                }
                fields = try Value.decodeFields(protobuf: document, number: 2, at: "document.fields")
            }
            self.init(
                database: database, collection: collection, documentID: documentID.isEmpty ? nil : documentID,
                fields: fields, mask: mask)
        }

        /// The message's bytes.
        public var protobuf: [UInt8] {
            var writer = ProtoWriter()
            writer.writeString(1, database.name(of: collection.parent))
            writer.writeString(2, collection.lastSegment)
            writer.writeNonEmptyString(3, documentID ?? "")
            writer.writeMessage(4) { Value.writeProtobufFields(fields, number: 2, to: &$0) }
            if let mask { writer.writeMessage(5) { FieldPath.writeProtobufMask(mask, to: &$0) } }
            return writer.bytes
        }
    }

    /// `BatchWriteRequest`: `database = 1`, `writes = 2` (applied independently, not atomically); `labels = 3` is
    /// read and ignored.
    public struct BatchWriteRequest: Sendable, Equatable {
        /// The database written.
        public var database: DatabaseName
        /// The writes, in order.
        public var writes: [Write]

        /// A request.
        public init(database: DatabaseName, writes: [Write]) {
            self.database = database
            self.writes = writes
        }

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var databaseName = ""
            var writeMessages: [ProtoReader] = []
            while let tag = try reader.nextTag() {
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): databaseName = try reader.readString()
                case (2, .lengthDelimited): writeMessages.append(try reader.readMessage())
                default: try reader.skip(tag)
                }
            }
            let database = try FirestoreRPC.database(named: databaseName, at: "database")
            var writes: [Write] = []
            for (index, message) in writeMessages.enumerated() {
                writes.append(try Write(protobuf: message, at: "writes[\(index)]", database: database))
            }
            self.init(database: database, writes: writes)
        }

        /// The message's bytes.
        public var protobuf: [UInt8] {
            // The same two members, at the same numbers, as a CommitRequest without a transaction.
            CommitRequest(database: database, writes: writes).protobuf
        }
    }

    /// The bytes of a `BatchWriteResponse`: `write_results = 1` and `status = 2`, one of each per write in request
    /// order (an empty result and the error for a write that failed, the result and an OK status otherwise).
    public static func batchWriteResponse(_ outcomes: [Result<WriteResult?, HearthError>]) -> [UInt8] {
        var writer = ProtoWriter()
        for outcome in outcomes {
            writer.writeMessage(1) { body in
                if case .success(let result?) = outcome { writeResult(result, to: &body) }
            }
        }
        for outcome in outcomes {
            writer.writeMessage(2) { body in
                if case .failure(let error) = outcome { error.writeProtobufStatus(to: &body) }
            }
        }
        return writer.bytes
    }

    /// `PartitionQueryRequest`: `parent = 1`, `structured_query = 2`, `partition_count = 3`, `page_token = 4`,
    /// `page_size = 5`, `read_time = 6`.
    public struct PartitionQueryRequest: Sendable, Equatable {
        /// The database read.
        public var database: DatabaseName
        /// The query to split (a collection-group query over all descendants, as Firestore requires).
        public var query: StructuredQuery
        /// The most partitions wanted.
        public var partitionCount: Int64

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` for a query Firestore would not partition.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var parentName = ""
            var queryMessage: ProtoReader?
            var partitionCount: Int64 = 0
            while let tag = try reader.nextTag() {
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): parentName = try reader.readString()
                case (2, .lengthDelimited): queryMessage = try reader.readMessage()
                case (3, .varint): partitionCount = try reader.readInt64()
                case (6, .lengthDelimited):
                    throw HearthError(
                        .unimplemented, "readTime is not supported: Hearth reads the latest committed state.")
                default: try reader.skip(tag)
                }
            }
            let (database, parent) = try FirestoreRPC.path(named: parentName, at: "parent")
            guard let queryMessage else { throw .invalidArgument("A PartitionQuery needs a structured_query.") }
            let query = try StructuredQuery(
                protobuf: queryMessage, at: "structuredQuery", database: database, parent: parent)
            guard query.allDescendants else {
                throw .invalidArgument("PartitionQuery splits collection-group queries only (allDescendants: true).")
            }
            guard partitionCount >= 1 else {
                throw .invalidArgument("partition_count must be at least 1, not \(partitionCount).")
            }
            self.database = database
            self.query = query
            self.partitionCount = partitionCount
        }
    }

    /// The bytes of a `PartitionQueryResponse` with no partition cursors: the whole query is one partition, which
    /// the protocol allows ("may return fewer partitions than requested") and which every client handles by running
    /// the query unsplit.
    public static func partitionQueryResponse() -> [UInt8] { [] }
}
