import Foundation
import HearthCore
import HearthTesting
import Testing

/// Accounts behaviour that needs its own server: limits, enumeration protection, production mode, restarts, the CLI.
@Suite("Accounts: configured servers")
struct AccountsServerTests {
    @Test("failed sign-ins lock the account; attempts per address are limited")
    func rateLimits() async throws {
        var options = HearthProcess.Options()
        options.extraArguments = ["--auth-rate-limits", "account=2/600,address=8/600"]
        try await withHearth(options) { server in
            let client = server.client
            let email = Accounts.uniqueEmail("limit")
            _ = try await client.signUp(email)  // attempt 1 of the address
            for _ in 0..<2 {  // attempts 2, 3
                expectAuthError(
                    try await client.accounts(
                        "signInWithPassword", ["email": .string(email), "password": "wrong-password"]),
                    "INVALID_PASSWORD")
            }
            // The right password no longer helps (attempt 4).
            expectAuthError(
                try await client.accounts(
                    "signInWithPassword", ["email": .string(email), "password": "secret-password"]),
                "TOO_MANY_ATTEMPTS_TRY_LATER")
            // Another account from the same address still works until the address runs out (attempts 5…8).
            let other = Accounts.uniqueEmail("other")
            _ = try await client.signUp(other)
            for _ in 0..<3 {
                _ = try expectOK(
                    await client.accounts(
                        "signInWithPassword", ["email": .string(other), "password": "secret-password"]))
            }
            expectAuthError(
                try await client.accounts(
                    "signInWithPassword", ["email": .string(other), "password": "secret-password"]),
                "TOO_MANY_ATTEMPTS_TRY_LATER")
            expectAuthError(
                try await client.accounts("sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(other)]),
                "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }

    @Test("email-enumeration protection answers INVALID_LOGIN_CREDENTIALS for both mistakes")
    func enumerationProtection() async throws {
        var options = HearthProcess.Options()
        options.extraArguments = ["--email-enumeration-protection"]
        try await withHearth(options) { server in
            let email = Accounts.uniqueEmail("enum")
            _ = try await server.client.signUp(email)
            expectAuthError(
                try await server.client.accounts(
                    "signInWithPassword", ["email": .string(email), "password": "wrong-password"]),
                "INVALID_LOGIN_CREDENTIALS")
            expectAuthError(
                try await server.client.accounts(
                    "signInWithPassword",
                    ["email": .string(Accounts.uniqueEmail("nobody")), "password": "secret-password"]),
                "INVALID_LOGIN_CREDENTIALS")
            _ = try expectOK(
                await server.client.accounts(
                    "sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(Accounts.uniqueEmail("nobody"))]))
        }
    }

    @Test(
        "outside development mode: the admin key, not owner; no unsigned custom tokens; no emulator endpoints; mail failures logged"
    )
    func production() async throws {
        let adminKey = "e2e-admin-key-\(UUID().uuidString)"
        var options = HearthProcess.Options()
        options.dev = false
        options.environment = ["HEARTH_ADMIN_KEY": adminKey]
        try await withHearth(options) { server in
            let client = server.client
            #expect(try await client.admin("query", [:], credential: "owner").status == 401)
            _ = try expectOK(await client.admin("query", ["returnUserInfo": false], credential: adminKey))
            let token = Accounts.unsignedCustomToken(["aud": .string(Accounts.customTokenAudience), "uid": "x"])
            expectAuthError(
                try await client.accounts("signInWithCustomToken", ["token": .string(token)]), "INVALID_CUSTOM_TOKEN")
            #expect(try await client.get("/emulator/v1/projects/demo/oobCodes").status == 403)
            #expect(
                try await client.get("/emulator/action", query: [("mode", "verifyEmail"), ("oobCode", "x")]).status
                    == 403)
            let wrongProject = try await client.admin("query", [:], project: "someone-else", credential: adminKey)
            expectAuthError(wrongProject, "CONFIGURATION_NOT_FOUND")

            // No SMTP server configured: the request still succeeds (its code is stored) and the failure is logged.
            let email = Accounts.uniqueEmail("nomail")
            let signUp = try await client.signUp(email)
            _ = try expectOK(
                await client.accounts(
                    "sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": signUp["idToken"] ?? ""]))
            let deadline = ContinuousClock.now + .seconds(20)
            while !server.stderr.contains("mail send failed"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(server.stderr.contains("mail send failed"), "\(server.stderr.suffix(1000))")
            #expect(!server.stderr.contains(email), "no address in the log")
            #expect(!server.stderr.contains("oobCode="), "no link in the log outside development mode")
            // The production action page answers HTML.
            let page = try await client.get(
                "/__/auth/action", query: [("mode", "verifyEmail"), ("oobCode", "unknown")])
            #expect(page.status == 400 && page.headers["content-type"]?.hasPrefix("text/html") == true)
        }
    }

    @Test("serve --help explains the accounts options; bad values exit 64")
    func options() async throws {
        let help = try await runHearth(["serve", "--help"])
        for flag in [
            "--admin-key-file", "--smtp-host", "--smtp-port", "--smtp-security", "--smtp-user", "--smtp-password-file",
            "--mail-from", "--mail-templates", "--app-name", "--public-url", "--action-url",
            "--email-enumeration-protection", "--auth-rate-limits", "HEARTH_ADMIN_KEY", "HEARTH_SMTP_PASSWORD",
        ] {
            #expect(help.stdout.contains(flag), "serve --help should mention \(flag)")
        }
        for arguments in [
            ["--auth-rate-limits", "bogus"], ["--smtp-security", "ssl"], ["--public-url", "ftp://x"],
            ["--admin-key-file", "/nonexistent/key"],
        ] {
            let run = try await runHearth(["serve", "--port", "0"] + arguments)
            #expect(run.termination == .exit(64), "\(arguments): \(run.stderr)")
        }
        let short = try await runHearth(["serve", "--port", "0"], environment: ["HEARTH_ADMIN_KEY": "owner"])
        #expect(short.termination == .exit(64), "owner is never an admin key")
    }

    @Test("accounts and signing keys survive a restart")
    func restart() async throws {
        let first = try await HearthProcess.start()
        let email = Accounts.uniqueEmail("restart")
        let signUp = try await first.client.signUp(email)
        #expect(try await first.stop() == .exit(0))
        let second = try await first.restart()
        defer { _ = second }
        _ = try expectOK(await second.client.accounts("lookup", ["idToken": signUp["idToken"] ?? ""]))
        _ = try expectOK(
            await second.client.accounts(
                "signInWithPassword", ["email": .string(email), "password": "secret-password"]))
        #expect(try await second.stop() == .exit(0))
    }

    @Test(
        "hearth users add/list/disable/delete and hearth keys rotate work on a running server's data directory",
        .sqliteOnly("hearth users and hearth keys work on SQLite data directories"))
    func commandLine() async throws {
        try await withHearth { server in
            let data = server.dataDirectory.path
            let email = Accounts.uniqueEmail("cli")
            let add = try await runHearth(
                ["users", "add", "--data", data, "--email", email, "--verified"],
                environment: ["HEARTH_USER_PASSWORD": "cli-password"])
            #expect(add.termination == .exit(0), "\(add.stderr)")
            let uid = add.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(uid.count == 28)
            let signIn = try expectOK(
                await server.client.accounts(
                    "signInWithPassword", ["email": .string(email), "password": "cli-password"]))
            #expect(signIn["localId"] == .string(uid))

            let list = try await runHearth(["users", "list", "--data", data])
            #expect(list.termination == .exit(0) && list.stdout.contains(uid) && list.stdout.contains(email))
            let json = try await runHearth(["users", "list", "--json", "--data", data])
            #expect(
                json.stdout.split(separator: "\n").contains {
                    $0.contains("\"uid\":\"\(uid)\"") && $0.contains("\"emailVerified\":true")
                })

            let disable = try await runHearth(["users", "disable", email, "--data", data])
            #expect(disable.termination == .exit(0), "\(disable.stderr)")
            expectAuthError(
                try await server.client.accounts(
                    "signInWithPassword", ["email": .string(email), "password": "cli-password"]), "USER_DISABLED")
            expectAuthError(
                try await server.client.accounts("lookup", ["idToken": signIn["idToken"] ?? ""]), "USER_DISABLED")
            #expect(try await runHearth(["users", "enable", uid, "--data", data]).termination == .exit(0))
            // Disabling ended every session for good (issue 14): a new sign-in, still signed by the old key.
            let again = try expectOK(
                await server.client.accounts(
                    "signInWithPassword", ["email": .string(email), "password": "cli-password"]))

            let before = try expectOK(await server.client.get("/.well-known/jwks.json"))["keys"]?.arrayValue?.count
            let rotate = try await runHearth(["keys", "rotate", "--data", data])
            #expect(rotate.termination == .exit(0), "\(rotate.stderr)")
            let newKID = rotate.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            // The server re-reads the key manifest at most once a second.
            try await Task.sleep(for: .milliseconds(1100))
            let keys = try expectOK(await server.client.get("/.well-known/jwks.json"))["keys"]?.arrayValue ?? []
            #expect(keys.count == (before ?? 0) + 1 && keys.first?["kid"] == .string(newKID))
            let fresh = try expectOK(
                await server.client.accounts(
                    "signInWithPassword", ["email": .string(email), "password": "cli-password"]))
            let header = Base64URL.decode(fresh["idToken"]?.stringValue?.split(separator: ".").first ?? "").flatMap {
                try? JSONParser.parse($0)
            }
            #expect(header?["kid"] == .string(newKID), "new tokens are signed with the new key")
            // The old key still verifies the tokens it signed.
            _ = try expectOK(await server.client.accounts("lookup", ["idToken": again["idToken"] ?? ""]))

            #expect(try await runHearth(["users", "delete", uid, "--data", data]).termination == .exit(0))
            expectAuthError(
                try await server.client.accounts(
                    "signInWithPassword", ["email": .string(email), "password": "cli-password"]), "EMAIL_NOT_FOUND")
            let missing = try await runHearth(["users", "delete", uid, "--data", data])
            #expect(missing.termination == .exit(1) && missing.stderr.contains("USER_NOT_FOUND"))
            #expect(try await runHearth(["users", "frobnicate", "--data", data]).termination == .exit(64))
        }
    }
}
