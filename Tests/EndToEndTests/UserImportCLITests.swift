import Foundation
import HearthCore
import Testing

/// `hearth users import FILE` on `firebase auth:export` JSON with the project's scrypt parameters: the users sign in
/// to a server on that data directory with their old passwords.
@Suite("hearth users import")
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
        let md5 = try await runHearth(["users", "import", export, "--data", data.path, "--hash-algo", "MD5"])
        #expect(md5.stderr.contains("MD5 is not supported"), "\(md5.stderr)")
        let list = try await runHearth(["users", "list", "--data", data.path])
        #expect(list.stdout.contains("0 accounts"), "\(list.stdout)")
    }
}
