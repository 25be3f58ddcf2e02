import Foundation
import HearthServer

/// `hearth export` and `hearth import`: a data directory as JSON-lines files and back (docs/export.md).
enum TransferCommand {
    static let exportHelp = """
        USAGE: hearth export --data DIR [--project ID] [--rules FILE] [--database-rules FILE] [--storage-rules FILE] OUT

        Writes everything the data directory DIR holds to OUT (a new directory) as JSON lines, one record per line,
        in a stable order: every project's documents in every database (documents.jsonl, with their create and update
        times), accounts with their password hashes (accounts.jsonl), the tree with its priorities (tree.jsonl),
        composite indexes (indexes.json, the firestore.indexes.json format) and rules (rules/, the named files where
        given, else those deployed). A running server keeps serving: each database is read in one snapshot.
        `hearth import` reads it back; the format is described in the repository's docs/export.md.

        OPTIONS:
          --data DIR                    data directory                 HEARTH_DATA (default ./hearth-data)
          --project ID                  the served project's ID        HEARTH_PROJECT (default demo)
          --rules, --database-rules, --storage-rules FILE
                                        the rules files the server runs with (they take the place of deployed ones)
        """

    static let importHelp = """
        USAGE: hearth import --data DIR IN

        Reads the export IN (written by `hearth export` or `hearth serve --export-on-exit`) into the data directory
        DIR, which must be empty or absent and which no server may have open. Documents keep their times, accounts
        their passwords, the tree its priorities; rules are deployed in DIR and composite indexes recorded (--dev
        builds them; `hearth indexes` prints them). Everything is checked and stored before DIR is filled: an import
        that fails leaves DIR as it was.

        OPTIONS:
          --data DIR                    data directory                 HEARTH_DATA (default ./hearth-data)
        """

    static func run(_ action: String, _ arguments: [String], environment: [String: String]) -> Int32 {
        let help = action == "export" ? exportHelp : importHelp
        do {
            let flags: Set<String> =
                action == "export"
                ? ["--data", "--store", "--project", "--rules", "--database-rules", "--storage-rules", "--config"]
                : ["--data", "--store"]
            let parsed = try CommandLineArguments(arguments, valueFlags: flags, switchFlags: ["--help", "-h"])
            if parsed.switches.contains("--help") || parsed.switches.contains("-h") {
                print(help)
                return 0
            }
            guard parsed.positional.count == 1 else {
                throw CommandLineArguments.UsageError(
                    description: action == "export" ? "name the directory to write" : "name the export to read")
            }
            try PostgresStoreRefusal.check(
                parsed, environment: environment, command: "hearth \(action)",
                alternative:
                    "copy the database with pg_dump and pg_restore (documents, indexes and accounts move with it).")
            let directory = parsed.dataDirectory(environment: environment)
            let path = parsed.positional[0]
            let started = ContinuousClock.now
            let summary: DataExport.Summary
            if action == "export" {
                let configuration = try ConfigurationResolver.resolve(flags: parsed, environment: environment)
                summary = try DataExport.export(data: directory, to: path, rules: rulesFiles(of: configuration))
            } else {
                summary = try DataImport.importData(from: path, to: directory)
            }
            let elapsed = (ContinuousClock.now - started).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            let verb = action == "export" ? "exported \(directory) to \(path)" : "imported \(path) into \(directory)"
            print("\(verb): \(describe(summary)) in \(String(format: "%.2f", seconds)) s")
            return 0
        } catch let error as CommandLineArguments.UsageError {
            FileHandle.standardError.write(Data("hearth \(action): \(error)\n\n\(help)\n".utf8))
            return 64
        } catch {
            FileHandle.standardError.write(Data("hearth \(action): \(error)\n".utf8))
            return 1
        }
    }

    /// The rules files a configuration names, as an export takes them.
    static func rulesFiles(of configuration: ServerConfiguration) -> DataExport.RulesFiles {
        DataExport.RulesFiles(
            firestore: configuration.rulesFile, storage: configuration.storageRulesFile,
            tree: configuration.databaseRulesFile, projectID: configuration.projectID)
    }

    /// `2 projects, 3 databases, 1000 documents, 2 accounts, 10 tree rows, 1 rules file`.
    static func describe(_ summary: DataExport.Summary) -> String {
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        return [
            count(summary.projects, "project"), count(summary.databases, "database"),
            count(summary.documents, "document"), count(summary.accounts, "account"),
            count(summary.treeRows, "tree row"), count(summary.rules, "rules file"),
        ].joined(separator: ", ")
    }
}
