import Foundation
import HearthAuth
import HearthCore
import HearthLog
import HearthMail
import HearthServer
import HearthStorePostgres

/// `hearth users list|add|import|disable|enable|delete`: manages accounts in a data directory, with or without a running
/// server on it (SQLite's WAL lets both work at once).
enum UsersCommand {
    static let help = """
        USAGE: hearth users <list|add|import|disable|enable|delete> --data DIR [options]

          list                          every account: uid, email, verified, disabled, created
            --json                        one JSON object per line instead of a table
          add --email EMAIL             create an account (prints its uid)
            --password-stdin              read the password from the first line of standard input
                                          (or set HEARTH_USER_PASSWORD); without either, no password
            --uid UID                     choose the uid (default: random)
            --display-name NAME
            --verified                    mark the email verified
          export FILE|-                 every account as `firebase auth:export` writes it (JSON, or CSV
                                        for a .csv file or --format csv), for `firebase auth:import` or
                                        another Hearth; password hashes are left out (see README)
          import FILE                   the users of `firebase auth:export FILE` (JSON or CSV), with their uids,
                                        profiles, providers and password hashes; each signs in with its old
                                        password, upgraded to argon2id at that first sign-in
            --hash-algo NAME              SCRYPT (Firebase's; the console's password hash parameters),
                                          STANDARD_SCRYPT, PBKDF2_SHA256, PBKDF_SHA1, BCRYPT (no
                                          parameters), HMAC_MD5/SHA1/SHA256/SHA512, MD5, SHA1, SHA256, SHA512
            --hash-key B64 --salt-separator B64 --rounds N --mem-cost N     SCRYPT
            --mem-cost N --block-size N --parallelization N                 STANDARD_SCRYPT (N = cpu/memory cost)
            --rounds N                                                      PBKDF2_SHA256, PBKDF_SHA1, MD5, SHA*
            --hash-key B64                                                  HMAC_*
            --hash-input-order SALT_FIRST|PASSWORD_FIRST                    HMAC_*, MD5, SHA* (default PASSWORD_FIRST)
          disable UID|EMAIL             refuse sign-ins and refreshes; existing sessions end
          enable UID|EMAIL              allow the account again
          delete UID|EMAIL              delete the account and its sessions

        OPTIONS:
          --data DIR                    data directory                 HEARTH_DATA (default ./hearth-data)
          --store URL                   the server's postgres:// store HEARTH_STORE (sqlite: the data directory)
          --project ID                  project ID                     HEARTH_PROJECT (default demo)
        """

    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        do {
            let parsed = try CommandLineArguments(
                arguments,
                valueFlags: [
                    "--data", "--store", "--project", "--email", "--uid", "--display-name", "--hash-algo", "--hash-key",
                    "--salt-separator", "--rounds", "--mem-cost", "--block-size", "--parallelization",
                    "--hash-input-order", "--format",
                ],
                switchFlags: ["--json", "--password-stdin", "--verified", "--help", "-h"])
            if parsed.switches.contains("--help") || parsed.switches.contains("-h") {
                print(help)
                return 0
            }
            guard let action = parsed.positional.first else {
                throw CommandLineArguments.UsageError(description: "missing action")
            }
            let (service, closeStore) = try openService(parsed, environment: environment)
            defer {
                service.close()
                closeStore()
            }
            switch action {
            case "list": try list(service, json: parsed.switches.contains("--json"))
            case "add": try add(service, parsed, environment: environment)
            case "import": try importUsers(service, parsed)
            case "export": try exportUsers(service, parsed)
            case "disable", "enable": try setDisabled(action == "disable", service, target(parsed))
            case "delete": try delete(service, target(parsed))
            default: throw CommandLineArguments.UsageError(description: "unknown action '\(action)'")
            }
            return 0
        } catch let error as CommandLineArguments.UsageError {
            FileHandle.standardError.write(Data("hearth users: \(error)\n\n\(help)\n".utf8))
            return 64
        } catch {
            FileHandle.standardError.write(Data("hearth users: \(error)\n".utf8))
            return 1
        }
    }

    /// The accounts of the data directory — or of the PostgreSQL database `--store` (or `HEARTH_STORE`) names —
    /// opened as the server opens them but with no mail going anywhere, and what closes their store after. This
    /// command runs in a process of its own, beside servers that may be serving the same accounts: on SQLite the
    /// accounts keep a writer connection of their own here (SQLite's file locks order it with the server's); on
    /// PostgreSQL its transactions order them with every node's, and the stored indexes are left as they are.
    static func openService(
        _ parsed: CommandLineArguments, environment: [String: String]
    ) throws -> (AccountService, close: @Sendable () -> Void) {
        let directory = parsed.dataDirectory(environment: environment)
        let project = parsed.values["--project"] ?? environment["HEARTH_PROJECT"] ?? "demo"
        let configuration = AccountsConfiguration(projectID: project, dataDirectory: directory)
        if let store = parsed.values["--store"] ?? environment["HEARTH_STORE"] {
            guard let location = StoreLocation(argument: store) else {
                throw CommandLineArguments.UsageError(
                    description: "--store must be sqlite or a postgres:// URL, not \(store.prefix(40))")
            }
            if case .postgres(let conninfo) = location {
                var settings = PostgresDocumentStore.Configuration(conninfo: conninfo)
                settings.reconcilesIndexes = false
                let documents = try PostgresDocumentStore(configuration: settings)
                do {
                    let accounts = AccountDatabase(
                        storage: PostgresAccountStorage(store: documents),
                        signingKeys: PostgresSigningKeys(store: documents),
                        rateLimits: PostgresRateLimits(store: documents))
                    let service = try AccountService(
                        configuration: configuration, mailer: Outbox(), logger: Logger(level: .error) { _ in },
                        clock: .system, accounts: accounts)
                    return (service, { documents.close() })
                } catch {
                    documents.close()
                    throw error
                }
            }
        }
        return (try AccountService(configuration: configuration, mailer: Outbox()), {})
    }

    private static func target(_ parsed: CommandLineArguments) throws -> String {
        guard parsed.positional.count == 2 else {
            throw CommandLineArguments.UsageError(description: "name one account by uid or email")
        }
        return parsed.positional[1]
    }

    private static let admin = RequestContext(isAdmin: true, clientAddress: "cli", linkBaseURL: "http://localhost")

    private static func find(_ service: AccountService, _ target: String) throws -> UserRecord {
        let matches =
            target.contains("@")
            ? try service.lookup(uids: [], emails: [target], phoneNumbers: [])
            : try service.lookup(uids: [target], emails: [], phoneNumbers: [])
        guard let user = matches.first else { throw AuthError("USER_NOT_FOUND", "no account \(target)") }
        return user
    }

    private static func list(_ service: AccountService, json: Bool) throws {
        let users = try service.allUsers()
        if json {
            for user in users {
                let object: [String: Any] = [
                    "uid": user.uid, "email": user.email ?? NSNull(), "emailVerified": user.emailVerified,
                    "disabled": user.disabled, "createdAt": user.createdAt, "displayName": user.displayName ?? NSNull(),
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            }
            return
        }
        let formatter = ISO8601DateFormatter()
        print(pad("UID", 30) + pad("EMAIL", 36) + pad("VERIFIED", 10) + pad("DISABLED", 10) + "CREATED")
        for user in users {
            let created = formatter.string(from: Date(timeIntervalSince1970: Double(user.createdAt) / 1000))
            print(
                pad(user.uid, 30) + pad(user.email ?? "-", 36) + pad(user.emailVerified ? "yes" : "no", 10)
                    + pad(user.disabled ? "yes" : "no", 10) + created)
        }
        print("\(users.count) account\(users.count == 1 ? "" : "s")")
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private static func add(
        _ service: AccountService, _ parsed: CommandLineArguments, environment: [String: String]
    ) throws {
        guard let email = parsed.values["--email"] else {
            throw CommandLineArguments.UsageError(description: "add needs --email")
        }
        var request = SignUpRequest()
        request.email = email
        request.localID = parsed.values["--uid"]
        request.displayName = parsed.values["--display-name"]
        request.emailVerified = parsed.switches.contains("--verified")
        if parsed.switches.contains("--password-stdin") {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw CommandLineArguments.UsageError(description: "--password-stdin: no password on standard input")
            }
            request.password = line
        } else if let password = environment["HEARTH_USER_PASSWORD"], !password.isEmpty {
            request.password = password
        }
        let result = try service.signUp(request, context: admin)
        print(result.user.uid)
    }

    /// `export FILE`: every account as `firebase auth:export` writes them, JSON or CSV by the file's extension or
    /// `--format`; `-` writes to standard output.
    private static func exportUsers(_ service: AccountService, _ parsed: CommandLineArguments) throws {
        guard parsed.positional.count == 2 else {
            throw CommandLineArguments.UsageError(description: "export needs the file to write (or -)")
        }
        let path = parsed.positional[1]
        let users = try service.allUsers()
        let text = try format(of: path, parsed) == "csv" ? UserExportFile.csv(users) : UserExportFile.json(users)
        if path == "-" {
            FileHandle.standardOutput.write(Data(text.utf8))
        } else {
            guard
                FileManager.default.createFile(
                    atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
            else { throw CommandLineArguments.UsageError(description: "cannot write \(path)") }
            FileHandle.standardError.write(
                Data("exported \(users.count) user\(users.count == 1 ? "" : "s") to \(path)\n".utf8))
        }
    }

    /// `csv` or `json`: `--format`, else the file's extension (JSON when it says neither).
    private static func format(of path: String, _ parsed: CommandLineArguments) throws -> String {
        if let format = parsed.values["--format"]?.lowercased() {
            guard format == "csv" || format == "json" else {
                throw CommandLineArguments.UsageError(description: "--format must be csv or json, not \(format)")
            }
            return format
        }
        return path.lowercased().hasSuffix(".csv") ? "csv" : "json"
    }

    /// `import FILE`: reads `firebase auth:export`'s JSON and imports it in batches of
    /// ``AccountService/maximumImportBatch``; prints the count and each refused user.
    private static func importUsers(_ service: AccountService, _ parsed: CommandLineArguments) throws {
        guard parsed.positional.count == 2 else {
            throw CommandLineArguments.UsageError(description: "import needs the exported file")
        }
        let path = parsed.positional[1]
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandLineArguments.UsageError(description: "cannot read \(path)")
        }
        let users: [ImportedUser]
        if try format(of: path, parsed) == "csv" {
            users = try UserExportFile.users(csv: String(decoding: data, as: UTF8.self))
        } else {
            guard let records = (try? JSONParser.parse(Array(data)))?["users"]?.arrayValue else {
                throw CommandLineArguments.UsageError(
                    description: "\(path) is not `firebase auth:export` JSON ({\"users\": [...]}) nor CSV (.csv)")
            }
            users = records.map(ImportedUser.init(json:))
        }
        var algorithm: PasswordHashAlgorithm?
        if let name = parsed.values["--hash-algo"] {
            func number(_ flag: String) throws -> Int? {
                guard let text = parsed.values[flag] else { return nil }
                guard let value = Int(text) else {
                    throw CommandLineArguments.UsageError(description: "\(flag) must be a number")
                }
                return value
            }
            var parameters = PasswordHashAlgorithm(name: name.uppercased())
            parameters.signerKey = ImportedUser.bytes(parsed.values["--hash-key"])
            parameters.saltSeparator = ImportedUser.bytes(parsed.values["--salt-separator"]) ?? []
            parameters.rounds = try number("--rounds")
            parameters.memoryCost = try number("--mem-cost")
            parameters.cpuMemoryCost = try number("--mem-cost")
            parameters.blockSize = try number("--block-size")
            parameters.parallelization = try number("--parallelization")
            switch parsed.values["--hash-input-order"]?.uppercased() {
            case nil, "PASSWORD_FIRST": parameters.saltFirst = false
            case "SALT_FIRST": parameters.saltFirst = true
            case let other?:
                throw CommandLineArguments.UsageError(
                    description: "--hash-input-order must be SALT_FIRST or PASSWORD_FIRST, not \(other)")
            }
            algorithm = parameters
        }
        var imported = 0
        var refused = 0
        var start = 0
        while start < users.count {
            let batch = Array(users[start..<min(start + AccountService.maximumImportBatch, users.count)])
            let errors = try service.batchCreate(batch, algorithm: algorithm)
            for error in errors {
                let uid = batch[error.index].localID ?? "#\(start + error.index)"
                FileHandle.standardError.write(Data("refused \(uid): \(error.message)\n".utf8))
            }
            imported += batch.count - errors.count
            refused += errors.count
            start += batch.count
        }
        print("imported \(imported) user\(imported == 1 ? "" : "s"), \(refused) refused")
        // A partial import must not look like a clean one to a script.
        if refused > 0 {
            throw AuthError("IMPORT_INCOMPLETE", "\(refused) user(s) were refused; the others were imported")
        }
    }

    private static func setDisabled(_ disabled: Bool, _ service: AccountService, _ target: String) throws {
        var request = UpdateRequest()
        request.localID = try find(service, target).uid
        request.disableUser = disabled
        let result = try service.update(request, context: admin)
        print("\(disabled ? "disabled" : "enabled") \(result.user.uid)")
    }

    private static func delete(_ service: AccountService, _ target: String) throws {
        let uid = try find(service, target).uid
        try service.delete(idToken: nil, localID: uid, context: admin)
        print("deleted \(uid)")
    }
}

/// `hearth keys list|rotate`: the ID-token signing keys of a data directory.
enum KeysCommand {
    static let help = """
        USAGE: hearth keys <list|rotate> [--data DIR | --store postgres://…]

          list      the signing keys: kid, created, retired
          rotate    make a new signing key; the previous one keeps verifying tokens until they expire (1 h + 5 min).
                    A running server picks the new key up within a second.

        OPTIONS:
          --data DIR                    data directory                 HEARTH_DATA (default ./hearth-data)
          --store URL                   the server's postgres:// store HEARTH_STORE (sqlite: the data directory)
        """

    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        do {
            let parsed = try CommandLineArguments(
                arguments, valueFlags: ["--data", "--store", "--project"], switchFlags: ["--help", "-h"])
            if parsed.switches.contains("--help") || parsed.switches.contains("-h") {
                print(help)
                return 0
            }
            let (service, closeStore) = try UsersCommand.openService(parsed, environment: environment)
            defer {
                service.close()
                closeStore()
            }
            switch parsed.positional.first {
            case "list"?:
                for key in service.signingKeys() {
                    print("\(key.id)  created \(key.createdAt)  \(key.retiredAt.map { "retired \($0)" } ?? "signing")")
                }
            case "rotate"?:
                print(try service.rotateSigningKey())
            default:
                throw CommandLineArguments.UsageError(description: "expected list or rotate")
            }
            return 0
        } catch let error as CommandLineArguments.UsageError {
            FileHandle.standardError.write(Data("hearth keys: \(error)\n\n\(help)\n".utf8))
            return 64
        } catch {
            FileHandle.standardError.write(Data("hearth keys: \(error)\n".utf8))
            return 1
        }
    }
}
