import HearthCore

/// The paths besides the documents API's that name one database of one project: the index list
/// (`/v1/projects/{p}/databases/{d}/collectionGroups/{c}/indexes`) and its builds' operations
/// (`/v1/projects/{p}/databases/{d}/operations`), and the emulator's wipe
/// (`/emulator/v1/projects/{p}/databases/{d}/documents`).
struct DatabaseScopedPath: Equatable {
    /// Which API answers it.
    enum Kind: String {
        case indexes
        case wipe
    }

    var kind: Kind
    var database: DatabaseName

    /// The database `path` names, or `nil` when it is neither kind.
    static func parse(_ path: String) -> DatabaseScopedPath? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 9, parts[1] == "v1", parts[2] == "projects", parts[4] == "databases",
            parts[6] == "collectionGroups", parts[8] == "indexes"
        {
            return DatabaseScopedPath(
                kind: .indexes, database: DatabaseName(project: String(parts[3]), database: String(parts[5])))
        }
        if parts.count == 7, parts[1] == "v1", parts[2] == "projects", parts[4] == "databases", parts[6] == "operations"
        {
            return DatabaseScopedPath(
                kind: .indexes, database: DatabaseName(project: String(parts[3]), database: String(parts[5])))
        }
        if parts.count == 8, parts[1] == "emulator", parts[2] == "v1", parts[3] == "projects", parts[5] == "databases",
            parts[7] == "documents"
        {
            return DatabaseScopedPath(
                kind: .wipe, database: DatabaseName(project: String(parts[4]), database: String(parts[6])))
        }
        return nil
    }
}
