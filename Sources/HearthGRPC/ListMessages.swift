public import HearthCore
public import HearthStore

extension FirestoreRPC {
    /// `ListDocumentsRequest`: `parent = 1`, `collection_id = 2`, `page_size = 3`, `page_token = 4`,
    /// `order_by = 6`, `mask = 7`, `transaction = 8` or `read_time = 10`, `show_missing = 12`.
    public struct ListDocumentsRequest: Sendable, Equatable {
        /// The database listed.
        public var database: DatabaseName
        /// The collection listed: `parent/collection_id`.
        public var collection: ResourcePath
        /// The most documents to return; 0 for the server's default.
        public var pageSize: Int
        /// The previous page's `next_page_token`; `nil` for the first page.
        public var pageToken: String?
        /// The `orderBy` text, as on REST (`"a desc, b"`); the server parses it as it parses REST's.
        public var orderBy: String
        /// The fields returned; `nil` for all.
        public var mask: [FieldPath]?
        /// What the listing sees (`transaction` or `read_time`; no `new_transaction` in this message).
        public var consistency: ReadConsistency
        /// Whether documents that do not exist but have documents below them are listed too (names only).
        public var showMissing: Bool

        /// A request.
        public init(
            database: DatabaseName, collection: ResourcePath, pageSize: Int = 0, pageToken: String? = nil,
            orderBy: String = "", mask: [FieldPath]? = nil, consistency: ReadConsistency = .latest,
            showMissing: Bool = false
        ) {
            self.database = database
            self.collection = collection
            self.pageSize = pageSize
            self.pageToken = pageToken
            self.orderBy = orderBy
            self.mask = mask
            self.consistency = consistency
            self.showMissing = showMissing
        }

        private static let numbers = (transaction: 8, newTransaction: Int?.none, readTime: 10)

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var parent = ""
            var collectionID = ""
            var pageSize: Int32 = 0
            var pageToken = ""
            var orderBy = ""
            var mask: [FieldPath]?
            var consistency = ReadConsistency.latest
            var showMissing = false
            while let tag = try reader.nextTag() {
                if try FirestoreRPC.readConsistency(tag, numbers: Self.numbers, from: &reader, into: &consistency) {
                    continue
                }
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): parent = try reader.readString()
                case (2, .lengthDelimited): collectionID = try reader.readString()
                case (3, .varint): pageSize = try reader.readInt32()
                case (4, .lengthDelimited): pageToken = try reader.readString()
                case (6, .lengthDelimited): orderBy = try reader.readString()
                case (7, .lengthDelimited): mask = try FieldPath.mask(protobuf: try reader.readMessage())
                case (12, .varint): showMissing = try reader.readBool()
                default: try reader.skip(tag)
                }
            }
            let (database, parentPath) = try FirestoreRPC.parent(named: parent)
            try ResourcePath.validate(id: collectionID, in: "\(parentPath)/\(collectionID)")
            self.init(
                database: database, collection: parentPath.appending(collectionID),
                pageSize: try FirestoreRPC.pageSize(pageSize), pageToken: pageToken.isEmpty ? nil : pageToken,
                orderBy: orderBy, mask: mask, consistency: consistency, showMissing: showMissing)
        }

        /// The message's bytes.
        public var protobuf: [UInt8] {
            var writer = ProtoWriter()
            writer.writeString(1, database.name(of: collection.parent))
            writer.writeNonEmptyString(2, collection.lastSegment)
            writer.writeNonZeroInt32(3, Int32(clamping: pageSize))
            writer.writeNonEmptyString(4, pageToken ?? "")
            writer.writeNonEmptyString(6, orderBy)
            if let mask { writer.writeMessage(7) { FieldPath.writeProtobufMask(mask, to: &$0) } }
            FirestoreRPC.writeConsistency(consistency, numbers: Self.numbers, to: &writer)
            writer.writeTrue(12, showMissing)
            return writer.bytes
        }
    }

    /// The bytes of a `ListDocumentsResponse`: `documents = 1` (a missing document by its name alone),
    /// `next_page_token = 2`.
    /// - Throws: `INTERNAL` when a stored document cannot be read.
    public static func listDocumentsResponse(
        _ page: ListDocumentsPage, database: DatabaseName, mask: [FieldPath]?
    ) throws(HearthError) -> [UInt8] {
        var writer = ProtoWriter()
        for entry in page.documents {
            switch entry {
            case .found(let document):
                try writer.writeMessage(1) { body throws(HearthError) in
                    try document.writeProtobuf(to: &body, database: database, mask: mask)
                }
            case .missing(let path):
                writer.writeMessage(1) { $0.writeString(1, database.name(of: path)) }
            }
        }
        writer.writeNonEmptyString(2, page.nextPageToken ?? "")
        return writer.bytes
    }

    /// `ListCollectionIdsRequest`: `parent = 1`, `page_size = 2`, `page_token = 3`, `read_time = 4`.
    public struct ListCollectionIDsRequest: Sendable, Equatable {
        /// The database read.
        public var database: DatabaseName
        /// The document whose collections are listed; the empty path for the root collections.
        public var parent: ResourcePath
        /// The most IDs to return; 0 for the server's default.
        public var pageSize: Int
        /// The previous page's `next_page_token`; `nil` for the first page.
        public var pageToken: String?
        /// A past time to read at (Hearth answers `UNIMPLEMENTED`; it keeps no old versions).
        public var readTime: Timestamp?

        /// A request.
        public init(
            database: DatabaseName, parent: ResourcePath, pageSize: Int = 0, pageToken: String? = nil,
            readTime: Timestamp? = nil
        ) {
            self.database = database
            self.parent = parent
            self.pageSize = pageSize
            self.pageToken = pageToken
            self.readTime = readTime
        }

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var parent = ""
            var pageSize: Int32 = 0
            var pageToken = ""
            var readTime: Timestamp?
            while let tag = try reader.nextTag() {
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): parent = try reader.readString()
                case (2, .varint): pageSize = try reader.readInt32()
                case (3, .lengthDelimited): pageToken = try reader.readString()
                case (4, .lengthDelimited): readTime = try Timestamp(protobuf: try reader.readMessage(), at: "readTime")
                default: try reader.skip(tag)
                }
            }
            let (database, parentPath) = try FirestoreRPC.parent(named: parent)
            self.init(
                database: database, parent: parentPath, pageSize: try FirestoreRPC.pageSize(pageSize),
                pageToken: pageToken.isEmpty ? nil : pageToken, readTime: readTime)
        }

        /// The message's bytes.
        public var protobuf: [UInt8] {
            var writer = ProtoWriter()
            writer.writeString(1, database.name(of: parent))
            writer.writeNonZeroInt32(2, Int32(clamping: pageSize))
            writer.writeNonEmptyString(3, pageToken ?? "")
            if let readTime { writer.writeMessage(4) { readTime.writeProtobuf(to: &$0) } }
            return writer.bytes
        }
    }

    /// The bytes of a `ListCollectionIdsResponse`: `collection_ids = 1`, `next_page_token = 2`.
    public static func listCollectionIDsResponse(_ ids: [String], nextPageToken: String?) -> [UInt8] {
        var writer = ProtoWriter()
        for id in ids { writer.writeString(1, id) }
        writer.writeNonEmptyString(2, nextPageToken ?? "")
        return writer.bytes
    }

    /// A listing's `parent`: the documents root or a document, never a collection.
    /// - Throws: `INVALID_ARGUMENT` for anything else.
    static func parent(named name: String) throws(HearthError) -> (DatabaseName, ResourcePath) {
        let (database, path) = try path(named: name, at: "parent")
        guard path.segments.isEmpty || path.isDocument else {
            throw .invalidArgument(
                "Invalid value at 'parent': \"\(name.prefix(200))\" is a collection; the parent is a document or the documents root."
            )
        }
        return (database, path)
    }

    /// A `page_size` as sent: 0 (the default) or more.
    static func pageSize(_ value: Int32) throws(HearthError) -> Int {
        guard value >= 0 else { throw .invalidArgument("pageSize must not be negative.") }
        return Int(value)
    }
}
