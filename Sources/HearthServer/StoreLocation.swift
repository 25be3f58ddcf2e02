/// Where a server keeps its documents, tree and accounts (`--store`, `HEARTH_STORE`, config key `store`).
public enum StoreLocation: Sendable, Equatable {
    /// SQLite files in the data directory: the embedded default, one node.
    case sqlite
    /// A PostgreSQL database (a libpq conninfo string or `postgres://` URL) that any number of nodes share.
    case postgres(conninfo: String)

    /// Parses `--store`: `sqlite`, or a `postgres://` / `postgresql://` URL.
    /// - Returns: `nil` for anything else.
    public init?(argument: String) {
        if argument == "sqlite" {
            self = .sqlite
        } else if argument.hasPrefix("postgres://") || argument.hasPrefix("postgresql://") {
            self = .postgres(conninfo: argument)
        } else {
            return nil
        }
    }
}
