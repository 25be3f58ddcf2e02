import Foundation
import HearthCore
import HearthRules

/// The rules issue's write-path figure: document creates by one signed-in user, each carrying its ID token and an
/// `owner` field, against a server without rules and one with a typical ownership rule — each on a fresh server of
/// its own, under the same wrk load — and the rate with rules as a share of the rate without.
struct RulesBenchmark {
    let options: BenchOptions
    let wrk: WrkRunner

    /// The ownership rule measured.
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /owned/{id} {
              allow create: if request.auth != null && request.resource.data.owner == request.auth.uid;
            }
          }
        }
        """

    /// Both loads, and the rule's evaluation rate on its own.
    struct Results: Sendable {
        var withoutRules: WrkResult?
        var withRules: WrkResult?
        /// Decisions per second for the create, one thread, in this process.
        var evaluationsPerSecond: Double?
    }

    func run(workDirectory: URL) throws -> Results {
        let rulesFile = workDirectory.appendingPathComponent("owned.rules")
        try Data(Self.rules.utf8).write(to: rulesFile)
        var results = Results()
        results.evaluationsPerSecond = try Self.evaluationRate(seconds: min(options.duration, 3))
        results.withoutRules = try measure(name: "hearth, create without rules", arguments: [], in: workDirectory)
        results.withRules = try measure(
            name: "hearth, create with an ownership rule", arguments: ["--rules", rulesFile.path], in: workDirectory)
        return results
    }

    private func measure(name: String, arguments: [String], in workDirectory: URL) throws -> WrkResult {
        let dataDirectory = workDirectory.appendingPathComponent("rules-data-\(arguments.isEmpty ? "off" : "on")")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let server = try HearthServerProcess(
            binary: options.hearthPath, dataDirectory: dataDirectory, logDirectory: workDirectory,
            threads: options.serverThreads, extraArguments: arguments)
        let result: WrkResult
        do {
            let client = SetupClient(baseURL: server.baseURL)
            let (uid, token) = try Self.signUp(client)
            let body =
                #"{"fields":{"owner":{"stringValue":"\#(uid)"},"title":{"stringValue":"hello"},"#
                + #""n":{"integerValue":"42"},"done":{"booleanValue":false}}}"#
            let path = LuaScripts.documentsPath + "/owned"
            try client.expect(
                "POST", path, json: body, bearer: token, bodyContains: "/documents/owned/")
            result = try wrk.run(
                WrkLoad(
                    name: name, url: server.baseURL + path, script: LuaScripts.post(body: body, bearer: token),
                    threads: options.wrkThreads, connections: options.connections, duration: options.duration))
        } catch {
            _ = try? server.stop()
            throw BenchError("\(error)\n" + server.recentErrors())
        }
        let status = try server.stop()
        guard status == 0 else {
            throw BenchError("hearth (\(name)) exited with status \(status)\n" + server.recentErrors())
        }
        return result
    }

    /// How many times a second one thread decides the benchmark's create under the ownership rule (the caller's token
    /// claims and a four-field document, as the server passes them).
    static func evaluationRate(seconds: Int) throws -> Double {
        let rules = try FirestoreRuleset(source: Self.rules)
        let auth = AuthContext(
            uid: "u1", claims: ["email": .string("u1@example.com"), "email_verified": .bool(true)], isAdmin: false)
        let request = FirestoreRequest(
            method: .create, path: ResourcePath(segments: ["owned", "d1"]), auth: auth,
            time: Timestamp(seconds: 1_700_000_000, nanos: 0),
            newData: [
                "owner": .string("u1"), "title": .string("hello"), "n": .integer(42), "done": .boolean(false),
            ])
        guard rules.authorize(request).isAllowed else { throw BenchError("the ownership rule refused its own owner") }
        log("evaluating the ownership rule for \(seconds) s")
        let start = ContinuousClock.now
        let end = start + .seconds(seconds)
        var decisions = 0
        var allowed = 0
        while ContinuousClock.now < end {
            for _ in 0..<1000 where rules.authorize(request).isAllowed { allowed += 1 }
            decisions += 1000
        }
        guard allowed == decisions else { throw BenchError("the ownership rule's decisions changed") }
        return Double(decisions) / (ContinuousClock.now - start).seconds
    }

    /// Signs a new user up through the accounts API; returns its uid and ID token.
    private static func signUp(_ client: SetupClient) throws -> (uid: String, token: String) {
        let email = "bench-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let text = try client.expect(
            "POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=bench",
            json: #"{"email":"\#(email)","password":"bench-password","returnSecureToken":true}"#,
            bodyContains: "idToken")
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let uid = object["localId"] as? String, let token = object["idToken"] as? String
        else { throw BenchError("accounts:signUp answered without localId and idToken:\n\(text.prefix(600))") }
        return (uid, token)
    }
}

extension RulesBenchmark.Results {
    /// The issue's targets: writes with rules at least this share of the rate without, and this many evaluations a
    /// second on one thread.
    static let targetShare = 0.8
    static let targetEvaluationsPerSecond = 500_000.0

    /// The rate with rules as a share of the rate without; `nil` when not measured.
    var share: Double? {
        guard let with = withRules?.requestsPerSecond, let without = withoutRules?.requestsPerSecond, without > 0
        else { return nil }
        return with / without
    }

    /// Targets missed.
    var missedTargets: Int {
        (share.map { $0 < Self.targetShare ? 1 : 0 } ?? 0)
            + (evaluationsPerSecond.map { $0 < Self.targetEvaluationsPerSecond ? 1 : 0 } ?? 0)
    }

    /// The report section.
    func markdown() -> String {
        let ms = ReportFormat.ms
        let rate = ReportFormat.rate
        var out = "\n## Security rules on the write path\n\n"
        out += "Creates (`POST …/documents/owned`) by one signed-in user, ID token and `owner` field on every request, "
        out += "each on a fresh server; with rules: `allow create: if request.auth != null && "
        out += "request.resource.data.owner == request.auth.uid`.\n\n"
        out += "| load | creates/s | p50 | p99 |\n| --- | ---: | ---: | ---: |\n"
        for result in [withoutRules, withRules].compactMap({ $0 }) {
            out += "| \(result.load.name) (-c\(result.load.connections)) | \(rate(result.requestsPerSecond)) "
            out += "| \(ms(result.latencyP50)) | \(ms(result.latencyP99)) |\n"
        }
        let verdict = share.map { $0 >= Self.targetShare ? "pass" : "FAIL" } ?? "—"
        out += "\nRate with rules: \(share.map { String(format: "%.0f%%", $0 * 100) } ?? "—") of the rate without; "
        out += "target ≥ \(Int(Self.targetShare * 100))%: \(verdict).\n"
        if let evaluationsPerSecond {
            let passed = evaluationsPerSecond >= Self.targetEvaluationsPerSecond
            out += "\nThe rule alone, one thread, in process: \(rate(evaluationsPerSecond)) decisions/s; target ≥ "
            out += "\(rate(Self.targetEvaluationsPerSecond)): \(passed ? "pass" : "FAIL").\n"
        }
        return out
    }
}
