import Foundation
import HearthServer
import HearthStorePostgres
import HearthStoreSQLite

/// `hearth indexes`: the composite indexes a data directory's queries need, as `firestore.indexes.json`.
enum IndexesCommand {
    static let help = """
        USAGE: hearth indexes [--data DIR | --store postgres://…] [--project ID] [--database ID]

        Prints, as a firestore.indexes.json document, every composite index of the data directory (or of the
        PostgreSQL database the server's --store names): the declared ones and those development mode (--dev)
        learned from the queries it answered without one. Deploy the file to production Hearth (--indexes FILE) or
        to Firebase (firebase deploy --only firestore:indexes). Reads the database only, so a running server keeps
        serving.

        OPTIONS:
          --data DIR                    data directory                 HEARTH_DATA (default ./hearth-data)
          --store URL                   a postgres:// database instead HEARTH_STORE (sqlite: the data directory)
          --project ID                  another project development mode kept in DIR/projects/ID
          --database ID                 a named database (DIR/databases/ID) instead of (default)
        """

    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        do {
            let parsed = try CommandLineArguments(
                arguments, valueFlags: ["--data", "--store", "--project", "--database"],
                switchFlags: ["--help", "-h"])
            if parsed.switches.contains("--help") || parsed.switches.contains("-h") {
                print(help)
                return 0
            }
            guard parsed.positional.isEmpty else {
                throw CommandLineArguments.UsageError(
                    description: "unexpected argument \(parsed.positional[0])")
            }
            if let store = parsed.values["--store"] ?? environment["HEARTH_STORE"] {
                guard let location = StoreLocation(argument: store) else {
                    throw CommandLineArguments.UsageError(
                        description: "--store must be sqlite or a postgres:// URL, not \(store.prefix(40))")
                }
                if case .postgres(let conninfo) = location {
                    // One PostgreSQL database holds one project's (default) database (see ProjectServer).
                    guard parsed.values["--project"] == nil, parsed.values["--database"] ?? "(default)" == "(default)"
                    else {
                        throw CommandLineArguments.UsageError(
                            description:
                                "a PostgreSQL store holds one project's (default) database: drop --project and --database"
                        )
                    }
                    let definitions = try PostgresDocumentStore.indexDefinitions(conninfo: conninfo)
                    print(LearnedIndexes.indexesJSON(definitions), terminator: "")
                    return 0
                }
            }
            var directory = parsed.dataDirectory(environment: environment)
            // The layout the server keeps (see ProjectRegistry and DatabaseServer in HearthServer).
            if let project = parsed.values["--project"] {
                directory = "\(directory)/\(DataDirectoryLayout.projects)/\(project)"
            }
            if let database = parsed.values["--database"], database != "(default)" {
                directory = "\(directory)/\(DataDirectoryLayout.databases)/\(database)"
            }
            print(try LearnedIndexes.indexesJSON(inDirectory: directory), terminator: "")
            return 0
        } catch let error as CommandLineArguments.UsageError {
            FileHandle.standardError.write(Data("hearth indexes: \(error)\n\n\(help)\n".utf8))
            return 64
        } catch {
            FileHandle.standardError.write(Data("hearth indexes: \(error)\n".utf8))
            return 1
        }
    }
}
