public import HearthCore
public import HearthListen

extension FirestoreRPC {
    /// One message of a `Listen` stream from the client (`google.firestore.v1.ListenRequest`): `database = 1`, and
    /// `add_target = 2` or `remove_target = 3`; `labels = 4` is read and ignored.
    public struct ListenMessage: Sendable, Equatable {
        /// The database the stream listens to.
        public var database: DatabaseName
        /// What the message asks: the same ``ListenRequest`` the SSE channel's JSON becomes.
        public var request: ListenRequest

        /// A message.
        public init(database: DatabaseName, request: ListenRequest) {
            self.database = database
            self.request = request
        }

        /// Decodes the message. Held to the SSE channel's rules: a target's `read_time` is refused (resume with a
        /// token), as are query targets with `select` or `offset`; at most
        /// ``ListenRequest/maxDocumentsPerTarget`` documents per target, repeats dropped.
        /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
        public init(protobuf bytes: [UInt8]) throws(HearthError) {
            var reader = try ProtoReader(bytes)
            var databaseName = ""
            enum Change {
                case add(ProtoReader)
                case remove(Int32)
            }
            var change: Change?
            while let tag = try reader.nextTag() {
                switch (tag.number, tag.wireType) {
                case (1, .lengthDelimited): databaseName = try reader.readString()
                case (2, .lengthDelimited): change = .add(try reader.readMessage())
                case (3, .varint): change = .remove(try reader.readInt32())
                default: try reader.skip(tag)
                }
            }
            let database = try FirestoreRPC.database(named: databaseName, at: "database")
            switch change {
            case nil:
                throw .invalidArgument("A ListenRequest needs addTarget or removeTarget.")
            case .remove(let id)?:
                guard id > 0 else {
                    throw .invalidArgument("Invalid value at 'removeTarget': a target ID is a positive 32-bit integer.")
                }
                self.init(database: database, request: .removeTarget(id))
            case .add(let target)?:
                self.init(
                    database: database,
                    request: .addTarget(try FirestoreRPC.target(target, at: "addTarget", database: database)))
            }
        }

        /// The message's bytes.
        public var protobuf: [UInt8] {
            var writer = ProtoWriter()
            writer.writeString(1, database.description)
            switch request {
            case .addTarget(let target):
                writer.writeMessage(2) { FirestoreRPC.writeTarget(target, database: database, to: &$0) }
            case .removeTarget(let id):
                writer.writeInt32(3, id)
            }
            return writer.bytes
        }
    }

    /// Decodes a `Target`: `query = 2` or `documents = 3`, `resume_token = 4` (or `read_time = 11`, refused),
    /// `target_id = 5`, `once = 6`; `expected_count = 12` is ignored.
    static func target(
        _ message: ProtoReader, at location: String, database: DatabaseName
    ) throws(HearthError)
        -> ListenTarget
    {
        var reader = message
        enum Kind {
            case query(ProtoReader)
            case documents(ProtoReader)
        }
        var kind: Kind?
        var token: [UInt8] = []
        var id: Int32 = 0
        var once = false
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (2, .lengthDelimited): kind = .query(try reader.readMessage())
            case (3, .lengthDelimited): kind = .documents(try reader.readMessage())
            case (4, .lengthDelimited): token = try reader.readBytes()
            case (11, .lengthDelimited):
                throw .invalidArgument(
                    "Invalid value at '\(location).readTime': Hearth resumes listens from a resumeToken, not a read time."
                )
            case (5, .varint): id = try reader.readInt32()
            case (6, .varint): once = try reader.readBool()
            default: try reader.skip(tag)
            }
        }
        guard id >= 0 else {
            throw .invalidArgument(
                "Invalid value at '\(location).targetId': a target ID is a positive 32-bit integer (or 0 to let the server pick)."
            )
        }
        var resumeToken: ResumeToken?
        if !token.isEmpty {
            // The token's one definition is its base64 form's (`ResumeToken(base64:)`); bytes are read through it.
            guard let decoded = ResumeToken(base64: Base64URL.encodeStandard(token)) else {
                throw .invalidArgument(
                    "Invalid value at '\(location).resumeToken': not a resume token this server issued.")
            }
            resumeToken = decoded
        }
        switch kind {
        case nil:
            throw .invalidArgument("Invalid value at '\(location)': a target holds exactly one of query and documents.")
        case .query(let query)?:
            return ListenTarget(
                id: id, kind: .query(try queryTarget(query, at: "\(location).query", database: database)),
                resumeToken: resumeToken, once: once)
        case .documents(let documents)?:
            return ListenTarget(
                id: id,
                kind: .documents(try documentsTarget(documents, at: "\(location).documents", database: database)),
                resumeToken: resumeToken, once: once)
        }
    }

    private static func queryTarget(
        _ message: ProtoReader, at location: String, database: DatabaseName
    ) throws(HearthError) -> StructuredQuery {
        var reader = message
        var parentName = ""
        var queryMessage: ProtoReader?
        while let tag = try reader.nextTag() {
            switch (tag.number, tag.wireType) {
            case (1, .lengthDelimited): parentName = try reader.readString()
            case (2, .lengthDelimited): queryMessage = try reader.readMessage()
            default: try reader.skip(tag)
            }
        }
        guard !parentName.isEmpty else {
            throw .invalidArgument(
                "Invalid value at '\(location).parent': a query target needs its parent (\(database.documentsRoot)).")
        }
        let parent = try database.path(fromName: parentName)
        guard let queryMessage else {
            throw .invalidArgument("Invalid value at '\(location)': a query target needs a structuredQuery.")
        }
        let queryLocation = "\(location).structuredQuery"
        let query = try StructuredQuery(protobuf: queryMessage, at: queryLocation, database: database, parent: parent)
        try ListenTarget.checkListenable(query, at: queryLocation)
        return query
    }

    private static func documentsTarget(
        _ message: ProtoReader, at location: String, database: DatabaseName
    ) throws(HearthError) -> [ResourcePath] {
        var reader = message
        var names: [String] = []
        while let tag = try reader.nextTag() {
            if tag.number == 2, tag.wireType == .lengthDelimited {
                names.append(try reader.readString())
                guard names.count <= ListenRequest.maxDocumentsPerTarget else {
                    throw .invalidArgument(
                        "Invalid value at '\(location).documents': at most \(ListenRequest.maxDocumentsPerTarget) documents per target."
                    )
                }
            } else {
                try reader.skip(tag)
            }
        }
        guard !names.isEmpty else {
            throw .invalidArgument("Invalid value at '\(location).documents': name at least one document.")
        }
        var paths: [ResourcePath] = []
        var seen: Set<ResourcePath> = []
        for name in names {
            let path = try database.path(fromName: name)
            guard path.isDocument else {
                throw .invalidArgument(
                    "Invalid value at '\(location).documents': \"\(name.prefix(200))\" is not a document name.")
            }
            if seen.insert(path).inserted { paths.append(path) }
        }
        return paths
    }

    /// Writes the body of a `Target`.
    static func writeTarget(_ target: ListenTarget, database: DatabaseName, to writer: inout ProtoWriter) {
        switch target.kind {
        case .query(let query):
            writer.writeMessage(2) { message in
                message.writeString(1, database.name(of: query.parent))
                message.writeMessage(2) { query.writeProtobuf(to: &$0) }
            }
        case .documents(let paths):
            writer.writeMessage(3) { message in
                for path in paths { message.writeString(2, database.name(of: path)) }
            }
        }
        if let token = target.resumeToken { writer.writeBytes(4, resumeTokenBytes(token)) }
        writer.writeNonZeroInt32(5, target.id)
        writer.writeTrue(6, target.once)
    }

    /// A resume token's bytes: its base64 form decoded.
    static func resumeTokenBytes(_ token: ResumeToken) -> [UInt8] { Base64URL.decode(token.base64) ?? [] }
}
