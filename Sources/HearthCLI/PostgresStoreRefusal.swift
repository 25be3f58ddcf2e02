import Foundation
import HearthServer

/// The data-directory commands (`export`, `import`, `backup`, `restore`) read and write SQLite's files; with a
/// PostgreSQL store (`--store`, or `HEARTH_STORE` as the server is started with) those files hold nothing the
/// server serves, so they refuse, naming PostgreSQL's own tools, rather than copy an empty database.
enum PostgresStoreRefusal {
    /// What a refusal says.
    struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    /// Throws ``Refused`` when the store is a PostgreSQL database; `alternative` says what to use instead.
    static func check(
        _ parsed: CommandLineArguments, environment: [String: String], command: String, alternative: String
    ) throws {
        guard let store = parsed.values["--store"] ?? environment["HEARTH_STORE"] else { return }
        guard let location = StoreLocation(argument: store) else {
            throw CommandLineArguments.UsageError(
                description: "--store must be sqlite or a postgres:// URL, not \(store.prefix(40))")
        }
        guard case .postgres = location else { return }
        throw Refused(
            description:
                "\(command) works on SQLite data directories only; this store is PostgreSQL: \(alternative)")
    }
}
