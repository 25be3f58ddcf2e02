public import HearthCore

extension ListenRequest {
    /// The most documents one `documents` target may name (Firestore's batchGet limit).
    public static let maxDocumentsPerTarget = 500

    /// Decodes a Firestore `ListenRequest` JSON object for a session on `database`.
    ///
    /// Exactly one of `addTarget` and `removeTarget`. `labels` is accepted and ignored; `database`, when given, must
    /// name the session's database. A target's `readTime` is refused (resume with `resumeToken`), as are queries with
    /// `select` or `offset`, which Firestore's listeners do not take either.
    /// - Throws: `INVALID_ARGUMENT` naming the member at fault.
    public init(firestoreJSON json: JSONValue, database: DatabaseName) throws(HearthError) {
        let reader = try JSONObjectReader(json, at: "", allowed: ["database", "addTarget", "removeTarget", "labels"])
        if let name = try reader.string("database"), name != database.description {
            throw .invalidArgument(
                "Invalid value at 'database': \"\(name.prefix(200))\" is not this session's database \(database).")
        }
        switch (reader["addTarget"], try reader.integer("removeTarget")) {
        case (let target?, nil):
            self = .addTarget(try ListenTarget(firestoreJSON: target, at: "addTarget", database: database))
        case (nil, let id?):
            guard let id = Int32(exactly: id), id > 0 else {
                throw .invalidArgument("Invalid value at 'removeTarget': a target ID is a positive 32-bit integer.")
            }
            self = .removeTarget(id)
        case (nil, nil):
            throw .invalidArgument("A ListenRequest needs addTarget or removeTarget.")
        case (_?, _?):
            throw .invalidArgument("A ListenRequest holds either addTarget or removeTarget, not both.")
        }
    }
}

extension ListenTarget {
    /// Decodes a Firestore `Target` JSON object.
    public init(firestoreJSON json: JSONValue, at location: String, database: DatabaseName) throws(HearthError) {
        let reader = try JSONObjectReader(
            json, at: location,
            allowed: ["query", "documents", "resumeToken", "readTime", "targetId", "once", "expectedCount"])
        let rawID = try reader.integer("targetId") ?? 0
        guard let id = Int32(exactly: rawID), id >= 0 else {
            throw .invalidArgument(
                "Invalid value at '\(reader.location(of: "targetId"))': a target ID is a positive 32-bit integer (or 0 to let the server pick)."
            )
        }
        if reader["readTime"] != nil {
            throw .invalidArgument(
                "Invalid value at '\(reader.location(of: "readTime"))': Hearth resumes listens from a resumeToken, not a read time."
            )
        }
        var token: ResumeToken?
        if let text = try reader.string("resumeToken"), !text.isEmpty {
            guard let decoded = ResumeToken(base64: text) else {
                throw .invalidArgument(
                    "Invalid value at '\(reader.location(of: "resumeToken"))': not a resume token this server issued.")
            }
            token = decoded
        }
        let kind: Kind
        switch (reader["query"], reader["documents"]) {
        case (let query?, nil):
            kind = .query(try Self.query(query, at: reader.location(of: "query"), database: database))
        case (nil, let documents?):
            kind = .documents(try Self.documents(documents, at: reader.location(of: "documents"), database: database))
        default:
            throw .invalidArgument("Invalid value at '\(location)': a target holds exactly one of query and documents.")
        }
        self.init(id: id, kind: kind, resumeToken: token, once: try reader.bool("once") ?? false)
    }

    private static func query(
        _ json: JSONValue, at location: String, database: DatabaseName
    ) throws(HearthError) -> StructuredQuery {
        let reader = try JSONObjectReader(json, at: location, allowed: ["parent", "structuredQuery"])
        guard let parentName = try reader.string("parent") else {
            throw .invalidArgument(
                "Invalid value at '\(reader.location(of: "parent"))': a query target needs its parent (\(database.documentsRoot))."
            )
        }
        let parent = try database.path(fromName: parentName)
        guard let queryJSON = reader["structuredQuery"] else {
            throw .invalidArgument("Invalid value at '\(location)': a query target needs a structuredQuery.")
        }
        let queryLocation = reader.location(of: "structuredQuery")
        let query = try StructuredQuery(firestoreJSON: queryJSON, at: queryLocation, database: database, parent: parent)
        try ListenTarget.checkListenable(query, at: queryLocation)
        return query
    }

    private static func documents(
        _ json: JSONValue, at location: String, database: DatabaseName
    ) throws(HearthError) -> [ResourcePath] {
        let reader = try JSONObjectReader(json, at: location, allowed: ["documents"])
        let names = try reader.strings("documents") ?? []
        guard !names.isEmpty else {
            throw .invalidArgument(
                "Invalid value at '\(reader.location(of: "documents"))': name at least one document.")
        }
        guard names.count <= ListenRequest.maxDocumentsPerTarget else {
            throw .invalidArgument(
                "Invalid value at '\(reader.location(of: "documents"))': at most \(ListenRequest.maxDocumentsPerTarget) documents per target."
            )
        }
        var paths: [ResourcePath] = []
        var seen: Set<ResourcePath> = []
        for name in names {
            let path = try database.path(fromName: name)
            guard path.isDocument else {
                throw .invalidArgument(
                    "Invalid value at '\(reader.location(of: "documents"))': \"\(name.prefix(200))\" is not a document name."
                )
            }
            if seen.insert(path).inserted { paths.append(path) }
        }
        return paths
    }
}

extension ListenTarget {
    /// Refuses what a listen target's query cannot have, for every encoding that reads one (this JSON reader and the
    /// gRPC one): `select` (listeners receive whole documents) and `offset` (a cursor does the same).
    /// - Throws: `INVALID_ARGUMENT` naming the member under `queryLocation`.
    public static func checkListenable(_ query: StructuredQuery, at queryLocation: String) throws(HearthError) {
        if query.projection != nil {
            throw .invalidArgument(
                "Invalid value at '\(queryLocation).select': listeners receive whole documents; remove select.")
        }
        if query.offset != 0 {
            throw .invalidArgument(
                "Invalid value at '\(queryLocation).offset': listeners do not take an offset; use a cursor (startAfter)."
            )
        }
    }
}
