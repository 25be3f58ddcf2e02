import Foundation

/// The `hearth` command line: dispatches to subcommands.
public enum HearthCommand {
    static let help = """
        USAGE: hearth <command> [options]

        Hearth is a self-hosted realtime backend that speaks Firebase's REST formats.

        COMMANDS:
          serve       run the server
          users       list, add, disable, enable or delete accounts in a data directory
          keys        list or rotate the ID-token signing keys of a data directory
          indexes     print the composite indexes a data directory's queries need (firestore.indexes.json)
          backup      copy a data directory while its server serves (a consistent snapshot)
          restore     put a backup in place as a data directory
          version     print the version

        Run 'hearth <command> --help' for a command's options. The options of 'serve':

        """ + ServeCommand.options

    /// The version string.
    public static let version = "0.1.0"

    /// Runs the command line and returns the process exit status.
    public static func main(_ arguments: [String], environment: [String: String]) -> Int32 {
        guard let command = arguments.first else {
            print(help)
            return 64
        }
        switch command {
        case "serve": return ServeCommand.run(Array(arguments.dropFirst()), environment: environment)
        case "users": return UsersCommand.run(Array(arguments.dropFirst()), environment: environment)
        case "keys": return KeysCommand.run(Array(arguments.dropFirst()), environment: environment)
        case "indexes": return IndexesCommand.run(Array(arguments.dropFirst()), environment: environment)
        case "rules": return RulesCommand.run(Array(arguments.dropFirst()), environment: environment)
        case "backup", "restore":
            return BackupCommand.run(command, Array(arguments.dropFirst()), environment: environment)
        case "export", "import":
            return TransferCommand.run(command, Array(arguments.dropFirst()), environment: environment)
        case "version", "--version":
            print("hearth \(version)")
            return 0
        case "help", "--help", "-h":
            print(help)
            return 0
        default:
            FileHandle.standardError.write(Data("hearth: unknown command '\(command)'\n\n\(help)\n".utf8))
            return 64
        }
    }
}
