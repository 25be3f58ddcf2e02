import Foundation
import HearthStoreSQLite

/// `hearth backup` and `hearth restore`: a consistent online copy of a data directory, and putting one in place.
enum BackupCommand {
    static let backupHelp = """
        USAGE: hearth backup --data DIR OUT

        Copies the data directory to OUT (a new directory) while its server keeps serving: documents, the tree,
        accounts with their password hashes, learned indexes, stored files and keys, as of one moment — every write
        acknowledged before it, none after. Writers are not stopped (SQLite's VACUUM INTO reads one snapshot). Run it
        from cron or a systemd timer; `hearth restore` puts a backup in place.

        OPTIONS:
          --data DIR                    data directory                 HEARTH_DATA (default ./hearth-data)
        """

    static let restoreHelp = """
        USAGE: hearth restore --data DIR IN

        Puts the backup IN in place as the data directory DIR, which must be empty or absent and which no server may
        have open. The database's integrity is checked once it is in place; a restore that fails leaves DIR as it was.

        OPTIONS:
          --data DIR                    data directory                 HEARTH_DATA (default ./hearth-data)
        """

    static func run(_ action: String, _ arguments: [String], environment: [String: String]) -> Int32 {
        let help = action == "backup" ? backupHelp : restoreHelp
        do {
            let parsed = try CommandLineArguments(
                arguments, valueFlags: ["--data", "--store"], switchFlags: ["--help", "-h"])
            if parsed.switches.contains("--help") || parsed.switches.contains("-h") {
                print(help)
                return 0
            }
            guard parsed.positional.count == 1 else {
                throw CommandLineArguments.UsageError(
                    description: action == "backup" ? "name the directory to write" : "name the backup to restore")
            }
            try PostgresStoreRefusal.check(
                parsed, environment: environment, command: "hearth \(action)",
                alternative:
                    "back the database up with PostgreSQL's own tools (pg_dump, or pg_basebackup with WAL archiving; README Scaling out), and each node's data directory for its stored files."
            )
            let directory = parsed.dataDirectory(environment: environment)
            let path = parsed.positional[0]
            let started = ContinuousClock.now
            if action == "backup" {
                let summary = try DataDirectoryBackup.backup(data: directory, to: path)
                print(
                    "backed up \(directory) to \(path): \(summary.databaseBytes) bytes of databases, \(summary.blobs) "
                        + "stored file\(summary.blobs == 1 ? "" : "s") in \(ContinuousClock.now - started)")
            } else {
                try DataDirectoryBackup.restore(from: path, to: directory)
                print("restored \(path) to \(directory); integrity check ok")
            }
            return 0
        } catch let error as CommandLineArguments.UsageError {
            FileHandle.standardError.write(Data("hearth \(action): \(error)\n\n\(help)\n".utf8))
            return 64
        } catch {
            FileHandle.standardError.write(Data("hearth \(action): \(error)\n".utf8))
            return 1
        }
    }
}
