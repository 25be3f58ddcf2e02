import Foundation
import HearthCore
import HearthTesting
import Testing

/// `hearth users import FILE` on `firebase auth:export` JSON with the project's scrypt parameters: the users sign in
/// to a server on that data directory with their old passwords.
@Suite("hearth users import", .sqliteOnly("hearth users works on SQLite data directories"))
struct UserImportCLITests {
    /// Firebase's scrypt test vector (its scrypt tool's README): parameters, salt, and the hash of "user1password".
    static let scrypt = [
        "--hash-algo", "SCRYPT", "--hash-key",
        "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
        "--salt-separator", "Bw==", "--rounds", "8", "--mem-cost", "14",
    ]

    @Test("an exported file imports; its users sign in with the old password; a bad row is refused alone")
    func importThenSignIn() async throws {
        let files = try TemporaryDirectory("hearth-import")
        defer { files.remove() }
        let export = files.url.appendingPathComponent("users.json").path
        try #"""
        {"users": [
          {"localId": "old-1", "email": "old@example.com", "emailVerified": true, "displayName": "Old One",
           "passwordHash": "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==",
           "salt": "42xEC+ixf3L2lw==", "createdAt": "1500000000000", "lastSignedInAt": "1600000000000",
           "providerUserInfo": [{"providerId": "google.com", "rawId": "g-old", "email": "old@example.com"}]},
          {"localId": "bad-1", "email": "not an address"}
        ]}
        """#.write(toFile: export, atomically: true, encoding: .utf8)
        let data = try TemporaryDirectory()
        let run = try await runHearth(["users", "import", export, "--data", data.path] + Self.scrypt)
        #expect(run.termination == .exit(1), "stderr: \(run.stderr)")
        #expect(run.stdout.contains("imported 1 user, 1 refused"), "\(run.stdout)")
        #expect(run.stderr.contains("refused bad-1: INVALID_EMAIL"), "\(run.stderr)")

        var options = HearthProcess.Options()
        options.dev = true
        let server = try await HearthProcess.start(options, dataDirectory: data)
        let client = server.client
        expectAuthError(
            try await client.accounts("signInWithPassword", ["email": "old@example.com", "password": "nope"]),
            "INVALID_PASSWORD")
        let signedIn = try expectOK(
            await client.accounts(
                "signInWithPassword",
                ["email": "old@example.com", "password": "user1password", "returnSecureToken": true]))
        #expect(signedIn["localId"] == "old-1")
        let account = try expectOK(await client.admin("lookup", ["localId": ["old-1"]]))["users"]?[0]
        #expect(account?["createdAt"] == "1500000000000")
        #expect(account?["emailVerified"] == true)
        let providers = account?["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue }
        #expect(providers?.sorted() == ["google.com", "password"])
        #expect(try expectOK(await client.admin("lookup", ["localId": ["bad-1"]]))["users"] == nil)
        try await server.stop()
    }

    @Test("hashes without --hash-algo, and an unsupported algorithm, are refused with nothing written")
    func badParameters() async throws {
        let files = try TemporaryDirectory("hearth-import")
        defer { files.remove() }
        let export = files.url.appendingPathComponent("users.json").path
        try #"{"users": [{"localId": "u1", "passwordHash": "AAAA", "salt": "AAAA"}]}"#
            .write(toFile: export, atomically: true, encoding: .utf8)
        let data = try TemporaryDirectory()
        defer { data.remove() }
        let missing = try await runHearth(["users", "import", export, "--data", data.path])
        #expect(missing.termination == .exit(1))
        #expect(missing.stderr.contains("MISSING_HASH_ALGORITHM"), "\(missing.stderr)")
        let argon = try await runHearth(["users", "import", export, "--data", data.path, "--hash-algo", "ARGON2"])
        #expect(argon.stderr.contains("ARGON2 is not supported"), "\(argon.stderr)")
        let md5 = try await runHearth(["users", "import", export, "--data", data.path, "--hash-algo", "MD5"])
        #expect(md5.stderr.contains("INVALID_HASH_ROUNDS"), "MD5 needs --rounds: \(md5.stderr)")
        let list = try await runHearth(["users", "list", "--data", data.path])
        #expect(list.stdout.contains("0 accounts"), "\(list.stdout)")
    }

    /// A CSV line as `firebase auth:export` writes it: 28 columns and a trailing comma, the display name quoted for
    /// its comma, a Google identity in columns 8-11, custom claims quoted with doubled quotes.
    static let csvLine =
        "csv-1,csv@example.com,true,lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==,"
        + "42xEC+ixf3L2lw==,\"Doe, Jane\",,g-csv,csv@gmail.com,Jane G,,,,,,,,,,,,,,1500000000000,1600000000000,,false,"
        + "\"{\"\"plan\"\":\"\"gold\"\"}\",\n"

    @Test("a CSV export imports: its user signs in, with the quoted name, the provider and the claims")
    func csvImport() async throws {
        let files = try TemporaryDirectory("hearth-import")
        defer { files.remove() }
        let export = files.url.appendingPathComponent("users.csv").path
        try Self.csvLine.write(toFile: export, atomically: true, encoding: .utf8)
        let data = try TemporaryDirectory()
        let run = try await runHearth(["users", "import", export, "--data", data.path] + Self.scrypt)
        #expect(run.termination == .exit(0), "stderr: \(run.stderr)")
        #expect(run.stdout.contains("imported 1 user, 0 refused"), "\(run.stdout)")
        let server = try await HearthProcess.start(HearthProcess.Options(), dataDirectory: data)
        let client = server.client
        try expectOK(
            await client.accounts(
                "signInWithPassword",
                ["email": "csv@example.com", "password": "user1password", "returnSecureToken": true]))
        let account = try expectOK(await client.admin("lookup", ["localId": ["csv-1"]]))["users"]?[0]
        #expect(account?["displayName"] == "Doe, Jane")
        #expect(account?["customAttributes"] == #"{"plan":"gold"}"#)
        #expect(account?["lastLoginAt"] != nil)
        let google = account?["providerUserInfo"]?.arrayValue?.first { $0["providerId"] == "google.com" }
        #expect(google?["rawId"] == "g-csv")
        #expect(google?["displayName"] == "Jane G")
        try await server.stop()

        let broken = files.url.appendingPathComponent("broken.csv").path
        try "only,three,columns\n".write(toFile: broken, atomically: true, encoding: .utf8)
        let refused = try await runHearth(["users", "import", broken, "--data", data.path])
        #expect(refused.termination == .exit(1))
        #expect(refused.stderr.contains("INVALID_CSV"), "\(refused.stderr)")
    }

    @Test("hearth users export writes what firebase auth:import reads, JSON and CSV; a second Hearth imports both")
    func exportRoundTrip() async throws {
        let files = try TemporaryDirectory("hearth-export")
        defer { files.remove() }
        let source = files.url.appendingPathComponent("users.csv").path
        try Self.csvLine.write(toFile: source, atomically: true, encoding: .utf8)
        let first = try TemporaryDirectory()
        defer { first.remove() }
        _ = try await runHearth(["users", "import", source, "--data", first.path] + Self.scrypt)
        _ = try await runHearth(["users", "add", "--email", "plain@example.com", "--data", first.path])

        for format in ["json", "csv"] {
            let file = files.url.appendingPathComponent("export.\(format)").path
            let exported = try await runHearth(["users", "export", file, "--data", first.path])
            #expect(exported.termination == .exit(0), "\(exported.stderr)")
            #expect(exported.stderr.contains("exported 2 users"), "\(exported.stderr)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(!text.contains("lSrfV15"), "no password hash leaves in an export")
            if format == "json" {
                let users = try JSONParser.parse(Array(text.utf8))["users"]?.arrayValue ?? []
                let allowed: Set<String> = [
                    "localId", "email", "emailVerified", "passwordHash", "salt", "displayName", "photoUrl",
                    "createdAt", "lastSignedInAt", "providerUserInfo", "phoneNumber", "disabled", "customAttributes",
                ]
                for user in users {
                    let keys = Set((user.objectValue ?? [:]).keys)
                    #expect(keys.isSubset(of: allowed), "\(user)")
                }
                #expect(users.count == 2)
            } else {
                #expect(text.contains(#""Doe, Jane""#), "\(text)")
                #expect(text.split(separator: "\n").allSatisfy { $0.hasSuffix(",") })
            }
            let second = try TemporaryDirectory()
            defer { second.remove() }
            let imported = try await runHearth(["users", "import", file, "--data", second.path])
            #expect(imported.stdout.contains("imported 2 users, 0 refused"), "\(imported.stdout) \(imported.stderr)")
            let server = try await HearthProcess.start(HearthProcess.Options(), dataDirectory: second)
            let account = try expectOK(await server.client.admin("lookup", ["localId": ["csv-1"]]))["users"]?[0]
            #expect(account?["displayName"] == "Doe, Jane", "\(format)")
            #expect(account?["createdAt"] == "1500000000000", "\(format)")
            #expect(account?["customAttributes"] == #"{"plan":"gold"}"#, "\(format)")
            #expect(account?["providerUserInfo"]?.arrayValue?.contains { $0["rawId"] == "g-csv" } == true)
            try await server.stop()
        }
    }
}
