public import HearthCore

extension FirestoreRPC {
    /// `UpdateDocumentRequest`: `document = 1`, `update_mask = 2`, `mask = 3`, `current_document = 4`; decoded as
    /// the one-write commit a REST `PATCH` becomes.
    public struct UpdateDocumentRequest: Sendable, Equatable {
        /// The database written.
        public var database: DatabaseName
        /// The write: an update of the named document, merged by `update_mask` when one is given.
        public var write: Write
        /// The fields of the answer's document; `nil` for all.
        public var mask: [FieldPath]?

        /// A request.
        public init(database: DatabaseName, write: Write, mask: [FieldPath]? = nil) {
            self.database = database
            self.write = write
            self.mask = mask
        }

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var document: ProtoReader?
            var updateMask: [FieldPath]?
            var mask: [FieldPath]?
            var precondition: Precondition?
            while let tag = try reader.nextTag() {
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): document = try reader.readMessage()
                case (2, .lengthDelimited): updateMask = try FieldPath.mask(protobuf: try reader.readMessage())
                case (3, .lengthDelimited): mask = try FieldPath.mask(protobuf: try reader.readMessage())
                case (4, .lengthDelimited):
                    precondition = try Precondition(protobuf: try reader.readMessage(), at: "currentDocument")
                default: try reader.skip(tag)
                }
            }
            guard let document else { throw .invalidArgument("Invalid value at 'document': a document is required.") }
            var name = ""
            var nameReader = document
            while let tag = try nameReader.nextTag() {
                if tag.number == 1, tag.wireType == .lengthDelimited {
                    name = try nameReader.readString()
                } else {
                    try nameReader.skip(tag)
                }
            }
            let (database, path) = try FirestoreRPC.path(named: name, at: "document.name")
            guard path.isDocument else {
                throw .invalidArgument(
                    "Invalid value at 'document.name': \"\(name.prefix(200))\" is not a document name.")
            }
            let fields = try Value.decodeFields(protobuf: document, number: 2, at: "document.fields")
            self.init(
                database: database,
                write: Write(
                    path: path, operation: .update(fields: fields, mask: updateMask), precondition: precondition),
                mask: mask)
        }
    }

    /// `DeleteDocumentRequest`: `name = 1`, `current_document = 2`; decoded as the one-write commit a REST
    /// `DELETE` becomes.
    public struct DeleteDocumentRequest: Sendable, Equatable {
        /// The database written.
        public var database: DatabaseName
        /// The write: a delete of the named document.
        public var write: Write

        /// A request.
        public init(database: DatabaseName, write: Write) {
            self.database = database
            self.write = write
        }

        /// Decodes the message.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var name = ""
            var precondition: Precondition?
            while let tag = try reader.nextTag() {
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): name = try reader.readString()
                case (2, .lengthDelimited):
                    precondition = try Precondition(protobuf: try reader.readMessage(), at: "currentDocument")
                default: try reader.skip(tag)
                }
            }
            let (database, path) = try FirestoreRPC.path(named: name, at: "name")
            guard path.isDocument else {
                throw .invalidArgument("Invalid value at 'name': \"\(name.prefix(200))\" is not a document name.")
            }
            self.init(database: database, write: Write(path: path, operation: .delete, precondition: precondition))
        }
    }
}
