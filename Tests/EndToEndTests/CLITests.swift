import Foundation
import HearthCore
import HearthTesting
import Testing

/// The command-line contract other tools script against.
@Suite("CLI contract", .timeLimit(.minutes(2)))
struct CLITests {
    static let everyOption = [
        "--host", "--port", "--data", "--project", "--dev", "--rules", "--database-rules", "--log-level",
    ]

    @Test("listening line, /healthz, SIGTERM exits 0 and leaves data on disk")
    func listenHealthzAndStop() async throws {
        let server = try await HearthProcess.start()
        let line = server.listeningLine
        #expect(line.hasPrefix("listening on http://127.0.0.1:"))
        #expect(server.port > 0 && server.port < 65536, "\(line)")
        #expect(server.child.stdout == "\(line)\n", "stdout holds exactly the one line")

        let health = try await server.client.get("/healthz")
        #expect(health.status == 200)
        #expect(health.headers["content-type"]?.hasPrefix("application/json") == true)
        expectJSON(try health.json(), FS.json(#"{"status":"ok"}"#))

        try await server.client.create(FS.unique("cli"), fields: #"{"a":{"integerValue":"1"}}"#)
        let termination = try await server.stop()
        #expect(termination == .exit(0), "stderr:\n\(server.stderr.suffix(2000))")
        #expect(!server.dataDirectory.contents().isEmpty, "the data directory holds the database")
    }

    @Test("`hearth serve --help` exits 0 and explains every option")
    func serveHelp() async throws {
        let run = try await runHearth(["serve", "--help"])
        #expect(run.termination == .exit(0))
        for option in Self.everyOption {
            #expect(run.stdout.contains(option), "serve --help should mention \(option):\n\(run.stdout)")
        }
        for variable in ["HEARTH_HOST", "HEARTH_PORT", "HEARTH_DATA", "HEARTH_PROJECT", "HEARTH_DEV"] {
            #expect(run.stdout.contains(variable), "serve --help should mention \(variable)")
        }
    }

    @Test("`hearth serve --help`'s --config entry lists the config-file key of every option it shows")
    func configKeysInHelp() async throws {
        let run = try await runHearth(["serve", "--help"])
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("  --config FILE") })
        let end = try #require(lines[start...].firstIndex { $0.hasPrefix("  -h, --help") })
        // Its first two lines say what the file is; the keys follow, separated by commas.
        let listed = Set(
            lines[(start + 2)..<end].joined(separator: " ").split(whereSeparator: { $0 == "," || $0 == " " })
                .map(String.init))
        // Every option but these (which name no setting of the server) has a key: its flag in camelCase.
        let notSettings: Set<String> = ["--config", "--import", "--export-on-exit"]
        let flags = lines.compactMap { line -> String? in
            guard line.hasPrefix("  --") else { return nil }
            return line.dropFirst(2).split(separator: " ").first.map(String.init)
        }
        #expect(flags.count > 40, "\(run.stdout)")
        for flag in flags where !notSettings.contains(flag) {
            let words = flag.dropFirst(2).split(separator: "-").map(String.init)
            let key = words[0] + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
            #expect(
                listed.contains(key),
                "--config should list \(key) (for \(flag)):\n\(lines[start..<end].joined(separator: "\n"))")
        }
    }

    @Test("`hearth --help` exits 0 and names the serve command")
    func topLevelHelp() async throws {
        let run = try await runHearth(["--help"])
        #expect(run.termination == .exit(0))
        #expect(run.stdout.contains("serve"), "\(run.stdout)")
    }

    @Test(
        "`hearth --help` explains every option")
    func topLevelHelpMentionsEveryOption() async throws {
        let run = try await runHearth(["--help"])
        #expect(run.termination == .exit(0))
        for option in Self.everyOption {
            #expect(run.stdout.contains(option), "hearth --help should mention \(option):\n\(run.stdout)")
        }
    }

    @Test(
        "a bad flag or value exits non-zero with a message naming it",
        arguments: [
            (["serve", "--bogus"], "--bogus"),
            (["serve", "--port", "notaport"], "--port"),
            (["serve", "--log-level", "loud"], "--log-level"),
            (["serve", "--trusted-proxies", "127.0.0.1,nginx.local"], "nginx.local"),
            (["serve", "--port"], "--port"),
            (["frobnicate"], "frobnicate"),
        ])
    func badArguments(arguments: [String], mentioned: String) async throws {
        let run = try await runHearth(arguments)
        guard case .exit(let status) = run.termination else {
            Issue.record("hearth \(arguments) ended by \(run.termination)")
            return
        }
        #expect(status != 0)
        #expect(run.stderr.contains(mentioned), "stderr should name \(mentioned): \(run.stderr)")
        #expect(!run.stdout.contains("listening on"))
    }

    @Test("HEARTH_HOST, HEARTH_PORT=0, HEARTH_DATA, HEARTH_DEV=1 and HEARTH_PROJECT are honoured")
    func environmentVariables() async throws {
        var options = HearthProcess.Options()
        options.host = nil
        options.port = nil
        options.dataAsFlag = false
        options.dev = false
        options.environment = ["HEARTH_HOST": "127.0.0.1", "HEARTH_PORT": "0", "HEARTH_DEV": "1"]
        try await withHearth(options) { server in
            #expect(server.port != 8080 && server.port > 0)
            // Dev mode: the emulator wipe is served.
            let wipe = try await server.client.request(
                "DELETE", "/emulator/v1/projects/demo/databases/(default)/documents")
            #expect(wipe.status == 200, "\(wipe)")
            try await server.client.create("envdata", id: "x")
            #expect(!server.dataDirectory.contents().isEmpty, "HEARTH_DATA is the data directory")
        }

        options.environment = ["HEARTH_PORT": "0", "HEARTH_PROJECT": "envproj", "HEARTH_RULES": OpenRules.path]
        try await withHearth(options) { server in
            // Not dev mode: only the configured project is served (open rules, since no rules would deny all).
            try await server.client.create("c", id: "x", project: "envproj")
            let other = try await server.client.request("POST", FS.path("c", project: "demo"), json: "{}")
            expectError(other, 404, "NOT_FOUND")
            let wipe = try await server.client.request(
                "DELETE", "/emulator/v1/projects/envproj/databases/(default)/documents")
            expectError(wipe, 403, "PERMISSION_DENIED")
        }
    }

    @Test("flags beat environment variables")
    func flagsBeatEnvironment() async throws {
        var options = HearthProcess.Options()
        options.dev = false
        options.project = "flagproj"
        options.extraArguments = ["--rules", OpenRules.path]
        options.environment = ["HEARTH_PORT": "notaport", "HEARTH_PROJECT": "envproj", "HEARTH_HOST": "999.1.1.1"]
        try await withHearth(options) { server in
            try await server.client.create("c", id: "x", project: "flagproj")
            let env = try await server.client.request("POST", FS.path("c", project: "envproj"), json: "{}")
            expectError(env, 404, "NOT_FOUND")
        }

        options = HearthProcess.Options()
        options.environment = ["HEARTH_DEV": "0"]
        try await withHearth(options) { server in
            let wipe = try await server.client.request(
                "DELETE", "/emulator/v1/projects/demo/databases/(default)/documents")
            #expect(wipe.status == 200, "--dev beats HEARTH_DEV=0: \(wipe)")
        }
    }
}
