import Foundation
import HearthCore
import HearthLog
import HearthServer

/// `hearth serve`: resolves the configuration (flags > `HEARTH_*` environment > config file > defaults),
/// runs the server, and stops it cleanly on SIGINT or SIGTERM.
enum ServeCommand {
    static let help = """
        USAGE: hearth serve [options]

        Runs the Hearth server: Firestore REST v1 documents on one port, data in an embedded SQLite database.
        Prints "listening on http://HOST:PORT" once it accepts connections. SIGINT or SIGTERM stop it
        gracefully: in-flight requests finish and the database closes cleanly.

        """ + options

    /// The options table, shared by `hearth --help` and `hearth serve --help`.
    static let options = """
        OPTIONS (each also settable by environment variable):
          --host ADDRESS          IPv4 address to bind                 HEARTH_HOST      (default 127.0.0.1)
          --port PORT             TCP port; 0 picks a free one          HEARTH_PORT      (default 8080)
          --data DIR              data directory                        HEARTH_DATA      (default ./hearth-data)
          --project ID[,ID…]      default project ID, then any more     HEARTH_PROJECT   (default demo)
                                  served beside it (DIR/projects/ID)
          --dev                   development mode: any project ID in   HEARTH_DEV=1
                                  a URL, emulator endpoints on
          --rules FILE            document security rules file          HEARTH_RULES
          --database-rules FILE   tree security rules file              HEARTH_DATABASE_RULES
          --storage-rules FILE    storage security rules file           HEARTH_STORAGE_RULES
          --indexes FILE          composite index definitions           HEARTH_INDEXES   (default: DIR/hearth.indexes.json)
                                  (firestore.indexes.json format)
          --import DIR            start from an export (hearth export)  HEARTH_IMPORT
                                  (without --data: in a temporary data
                                  directory, removed at exit)
          --export-on-exit DIR    on stop, export the data to DIR       HEARTH_EXPORT_ON_EXIT
                                  (replacing it), as the emulator does
          --store URL             documents, tree and accounts: sqlite  HEARTH_STORE     (default sqlite)
                                  (in DIR), or a postgres:// URL that
                                  every node serving the project shares
          --log-level LEVEL       debug, info, warning or error         HEARTH_LOG_LEVEL (default info)
          --threads N             HTTP worker threads                   HEARTH_THREADS   (default: CPU count)
        """ + ListenOptions.help + StorageOptions.help + CORSOptions.help + ConnectionOptions.help
        + ReadLimitOptions.help
        + AccountsOptions.help + ProvidersOptions.help + ConfigurationResolver.configHelp + """
              -h, --help              show this help
            """

    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        var configuration: ServerConfiguration
        let seed: TestDataSet
        do {
            let parsed = try CommandLineArguments(
                arguments,
                valueFlags: Set<String>([
                    "--host", "--port", "--data", "--project", "--rules", "--database-rules", "--storage-rules",
                    "--indexes", "--store",
                    "--log-level",
                    "--threads", "--config", "--import", "--export-on-exit",
                ]).union(AccountsOptions.valueFlags).union(ListenOptions.valueFlags)
                    .union(StorageOptions.valueFlags)
                    .union(CORSOptions.valueFlags).union(ConnectionOptions.valueFlags)
                    .union(ReadLimitOptions.valueFlags)
                    .union(Set(ProvidersOptions.keys.map(\.flag)).subtracting(ProvidersOptions.switchFlags)),
                switchFlags: Set(["--dev", "--help", "-h"]).union(AccountsOptions.switchFlags)
                    .union(ProvidersOptions.switchFlags))
            if parsed.switches.contains("--help") || parsed.switches.contains("-h") {
                print(help)
                return 0
            }
            if let extra = parsed.positional.first {
                throw CommandLineArguments.UsageError(description: "unexpected argument \(extra)")
            }
            configuration = try ConfigurationResolver.resolve(flags: parsed, environment: environment)
            seed = try TestDataSet(flags: parsed, environment: environment, configuration: &configuration)
        } catch {
            FileHandle.standardError.write(
                Data("hearth serve: \(error)\nRun 'hearth serve --help' for the options.\n".utf8))
            return 64
        }

        let logger = Logger(level: configuration.logLevel)
        let application: HearthApplication
        let port: Int
        do {
            try seed.load(logger: logger)
            application = try HearthApplication(configuration: configuration, logger: logger)
            port = try application.start()
        } catch {
            logger.error("cannot start", ["reason": .string("\(error)")])
            FileHandle.standardError.write(Data("hearth serve: \(error)\n".utf8))
            seed.discard()
            return 1
        }

        let stopped = DispatchSemaphore(value: 0)
        let signals = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                logger.info("stopping", ["signal": .int(Int(number))])
                stopped.signal()
            }
            source.resume()
            return source
        }
        // Written straight to the file descriptor: tools wait for this line, so it must not sit in a buffer.
        FileHandle.standardOutput.write(Data("listening on http://\(configuration.host):\(port)\n".utf8))
        stopped.wait()
        application.stop()
        for source in signals { source.cancel() }
        let saved = seed.save(configuration: configuration, logger: logger)
        seed.discard()
        return saved ? 0 : 1
    }
}
