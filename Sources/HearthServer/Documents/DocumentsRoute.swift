import HearthCore

/// A parsed Firestore REST URL: `/v1/projects/{p}/databases/{d}/documents[/{path}][:{verb}]`.
struct DocumentsRoute: Sendable, Equatable {
    /// The custom methods Firestore defines on documents; any other `:suffix` belongs to a document ID.
    static let verbs: Set<String> = [
        "commit", "batchGet", "batchWrite", "beginTransaction", "rollback", "runQuery", "runAggregationQuery",
        "listCollectionIds", "listDocuments", "partitionQuery", "listen", "write",
    ]

    var database: DatabaseName
    var path: ResourcePath
    var verb: String?

    /// Parses the URL path; `nil` when it is not a documents URL at all.
    /// - Throws: `INVALID_ARGUMENT` for a documents URL with an invalid resource path.
    static func parse(_ urlPath: String) throws(HearthError) -> DocumentsRoute? {
        guard urlPath.hasPrefix("/v1/projects/") else { return nil }
        var parts = urlPath.dropFirst(4).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 5, parts[0] == "projects", parts[2] == "databases" else { return nil }
        var verb: String?
        if let colon = parts[parts.count - 1].lastIndex(of: ":") {
            let candidate = String(parts[parts.count - 1][parts[parts.count - 1].index(after: colon)...])
            if verbs.contains(candidate) {
                verb = candidate
                parts[parts.count - 1] = String(parts[parts.count - 1][..<colon])
            }
        }
        guard parts[4] == "documents", !parts[1].isEmpty, !parts[3].isEmpty else { return nil }
        let database = DatabaseName(project: parts[1], database: parts[3])
        let segments = Array(parts.dropFirst(5))
        let path = try ResourcePath(validatingSegments: segments)
        return DocumentsRoute(database: database, path: path, verb: verb)
    }
}
