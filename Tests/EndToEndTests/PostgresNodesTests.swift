import Foundation
import HearthCore
import HearthPostgresTestSupport
import HearthTesting
import Testing

/// Several `hearth serve --store postgres://…` processes on one PostgreSQL database serve one project: what one node
/// writes, another reads and streams; an ID token one node signed verifies on another; a node killed with
/// `kill -9` loses nothing it acknowledged; a named database one node makes, every node serves.
@Suite("Several nodes on one PostgreSQL database", .serialized, TestCluster.requirement)
struct PostgresNodesTests {
    static let root = "/v1/projects/demo/databases/(default)/documents"

    static func node(_ url: String, _ arguments: [String] = []) async throws -> HearthProcess {
        var options = HearthProcess.Options()
        options.project = "demo"
        options.extraArguments = ["--store", url] + arguments
        return try await HearthProcess.start(options)
    }

    /// The options of a production-mode node (no `--dev`) on `url` with an admin key, and that key.
    static func productionNode(_ url: String) -> (HearthProcess.Options, String) {
        let adminKey = "e2e-admin-key-\(UUID().uuidString)"
        var options = HearthProcess.Options.production
        options.project = "demo"
        options.environment = ["HEARTH_ADMIN_KEY": adminKey]
        options.extraArguments = ["--store", url]
        return (options, adminKey)
    }

    @Test("a write on one node is read, streamed and signed in on another; kill -9 loses nothing acknowledged")
    func twoNodesServeOneProject() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let first = try await Self.node(url)
        let second = try await Self.node(url)
        defer { _ = second }

        let tree = try second.stream("chat")
        try tree.waitForHead()

        let created = try await first.client.request(
            "POST", Self.root + "/rooms", query: [("documentId", "r1")], json: #"{"fields":{"n":{"integerValue":"1"}}}"#
        )
        #expect(created.status == 200, "\(created)")
        let read = try await second.client.get(Self.root + "/rooms/r1")
        #expect(try read.json()["fields"]?["n"]?["integerValue"] == .string("1"), "\(read)")

        let put = try await first.client.request("PUT", "/chat/m1.json", json: #"{"t":"from the first node"}"#)
        #expect(put.status == 200, "\(put)")
        let events = try await tree.dataEvents(2)
        #expect(events.last?.data.contains("from the first node") == true, "\(events)")

        let signedUp = try await first.client.request(
            "POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp", query: [("key", "k")],
            json: #"{"email":"node@example.com","password":"secret-password","returnSecureToken":true}"#)
        let token = try #require(try signedUp.json()["idToken"]?.stringValue, "\(signedUp)")
        let lookedUp = try await second.client.request(
            "POST", "/identitytoolkit.googleapis.com/v1/accounts:lookup", query: [("key", "k")],
            json: #"{"idToken":"\#(token)"}"#)
        #expect(lookedUp.status == 200, "a token the first node signed verifies on the second: \(lookedUp)")
        let duplicate = try await second.client.request(
            "POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp", query: [("key", "k")],
            json: #"{"email":"node@example.com","password":"secret-password"}"#)
        #expect(try duplicate.json()["error"]?["message"]?.stringValue == "EMAIL_EXISTS", "\(duplicate)")

        let acknowledged = try await first.client.request(
            "POST", Self.root + "/rooms", query: [("documentId", "r2")], json: #"{"fields":{}}"#)
        #expect(acknowledged.status == 200)
        _ = try await first.kill9()
        let survived = try await second.client.get(Self.root + "/rooms/r2")
        #expect(survived.status == 200, "an acknowledged write outlives its node: \(survived)")
        let after = try await second.client.request("PUT", "/chat/m2.json", json: #""still serving""#)
        #expect(after.status == 200, "\(after)")
        tree.close()
    }

    @Test("named databases and other projects one node makes are served by another, apart from (default)")
    func namedDatabasesAcrossNodes() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let (options, adminKey) = Self.productionNode(url)
        let first = try await HearthProcess.start(options)
        let second = try await HearthProcess.start(options)
        let admin = ["Authorization": "Bearer \(adminKey)"]
        let base = "/v1/projects/demo/databases"
        let created = try await first.client.request("POST", base, query: [("databaseId", "shop-eu")], headers: admin)
        #expect(created.status == 200, "\(created)")
        let written = try await first.client.request(
            "PATCH", base + "/shop-eu/documents/c/d", json: #"{"fields":{"v":{"stringValue":"in shop-eu"}}}"#,
            headers: admin)
        #expect(written.status == 200, "\(written)")
        // The second node has no directory for it: PostgreSQL says it exists, and holds its documents.
        let read = try await second.client.request("GET", base + "/shop-eu/documents/c/d", headers: admin)
        #expect(try read.json()["fields"]?["v"]?["stringValue"] == .string("in shop-eu"), "\(read)")
        let inDefault = try await second.client.request("GET", base + "/(default)/documents/c/d", headers: admin)
        #expect(inDefault.status == 404, "\(inDefault)")
        let listed = try await second.client.request("GET", base, headers: admin)
        let names = (try listed.json()["databases"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        #expect(names == ["projects/demo/databases/(default)", "projects/demo/databases/shop-eu"], "\(listed)")
        let again = try await second.client.request("POST", base, query: [("databaseId", "shop-eu")], headers: admin)
        #expect(again.status == 409, "\(again)")
        let missing = try await second.client.request("GET", base + "/nothing/documents/c/d", headers: admin)
        #expect(missing.status == 404, "\(missing)")
        // Deleted, its documents are gone from PostgreSQL: a node that never opened it finds nothing.
        let deleted = try await first.client.request("DELETE", base + "/shop-eu", headers: admin)
        #expect(deleted.status == 200, "\(deleted)")
        let third = try await HearthProcess.start(options)
        let gone = try await third.client.request("GET", base + "/shop-eu/documents/c/d", headers: admin)
        #expect(gone.status == 404, "\(gone)")
        // Development mode's other projects live in schemas of their own too: apart from demo, seen by every node.
        let development = try await Self.node(url)
        let otherNode = try await Self.node(url)
        let inOther = try await development.client.request(
            "PATCH", "/v1/projects/other-app/databases/(default)/documents/c/d",
            json: #"{"fields":{"v":{"stringValue":"other"}}}"#)
        #expect(inOther.status == 200, "\(inOther)")
        let readOther = try await otherNode.client.get("/v1/projects/other-app/databases/(default)/documents/c/d")
        #expect(try readOther.json()["fields"]?["v"]?["stringValue"] == .string("other"), "\(readOther)")
        let inDemo = try await otherNode.client.get("/v1/projects/demo/databases/(default)/documents/c/d")
        #expect(inDemo.status == 404, "\(inDemo)")
    }

    @Test("a named database deleted on one node is gone on the one that had it open; made again, it is empty on both")
    func namedDatabaseDeletedAcrossNodes() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let (options, adminKey) = Self.productionNode(url)
        let first = try await HearthProcess.start(options)
        let second = try await HearthProcess.start(options)
        let admin = ["Authorization": "Bearer \(adminKey)"]
        let base = "/v1/projects/demo/databases"
        let document = base + "/shop-eu/documents/c/d"
        let body = #"{"fields":{"v":{"stringValue":"in shop-eu"}}}"#
        let created = try await first.client.request("POST", base, query: [("databaseId", "shop-eu")], headers: admin)
        #expect(created.status == 200, "\(created)")
        #expect(try await first.client.request("PATCH", document, json: body, headers: admin).status == 200)
        // The second node opens it; each node has a listener on it.
        let read = try await second.client.request("GET", document, headers: admin)
        #expect(try read.json()["fields"]?["v"]?["stringValue"] == .string("in shop-eu"), "\(read)")
        let target =
            #"{"addTarget":{"targetId":7,"query":{"parent":"projects/demo/databases/shop-eu/documents","structuredQuery":{"from":[{"collectionId":"c"}]}}}}"#
        var channels: [ListenChannelClient] = []
        for node in [first, second] {
            let channel = try ListenChannelClient(
                port: node.port, database: "shop-eu", headers: ["Authorization: Bearer \(adminKey)"])
            _ = try expectOK(
                try await node.client.request(
                    "POST", base + "/shop-eu/documents:listen", query: [("session", channel.session)], json: target,
                    headers: admin))
            _ = try await channel.next { $0.json?["targetChange"]?["targetChangeType"] == "CURRENT" }
            channels.append(channel)
        }
        defer { for channel in channels { channel.close() } }

        let deleted = try await first.client.request("DELETE", base + "/shop-eu", headers: admin)
        #expect(deleted.status == 200, "\(deleted)")
        // Both listeners end, and alike: what follows their CURRENT is the same on both nodes (but for NO_CHANGE,
        // whose resume tokens and count depend on timing).
        var endings: [[String]] = []
        for channel in channels {
            try await channel.stream.waitForEnd(timeout: .seconds(60))
            let after = channel.allEvents.drop { $0.json?["targetChange"]?["targetChangeType"] != "CURRENT" }
            let closing = after.dropFirst().filter { $0.json?["targetChange"]?["targetChangeType"] != "NO_CHANGE" }
            endings.append(closing.map { "\($0.name ?? "") \($0.json.map { "\($0)" } ?? "")" })
        }
        #expect(endings[0] == endings[1], "\(endings)")
        /// A request's status and its error's status name, as both nodes must answer it alike.
        func answer(_ node: HearthProcess, _ method: String, _ json: String? = nil) async throws -> String {
            let result =
                if let json {
                    try await node.client.request(method, document, json: json, headers: admin)
                } else {
                    try await node.client.request(method, document, headers: admin)
                }
            return "\(result.status) \(try result.json()["error"]?["status"]?.stringValue ?? "")"
        }
        let onFirst = try await answer(first, "GET")
        #expect(onFirst == "404 NOT_FOUND")
        let deadline = ContinuousClock.now + .seconds(60)
        var onSecond = try await answer(second, "GET")
        while onSecond != onFirst, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            onSecond = try await answer(second, "GET")
        }
        #expect(onSecond == onFirst, "a read on the node that had it open")
        #expect(try await answer(second, "PATCH", body) == onFirst, "a write there makes nothing")
        #expect(try await answer(first, "PATCH", body) == onFirst)
        let listed = try await second.client.request("GET", base, headers: admin)
        let names = (try listed.json()["databases"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
        #expect(names == ["projects/demo/databases/(default)"], "\(listed)")

        // Made again, on the node that had it open: empty there and on the node that deleted it.
        let again = try await second.client.request("POST", base, query: [("databaseId", "shop-eu")], headers: admin)
        #expect(again.status == 200, "\(again)")
        #expect(try await answer(second, "GET") == "404 NOT_FOUND")
        #expect(try await answer(first, "GET") == "404 NOT_FOUND")
        #expect(try await second.client.request("PATCH", document, json: body, headers: admin).status == 200)
        let reread = try await first.client.request("GET", document, headers: admin)
        #expect(try reread.json()["fields"]?["v"]?["stringValue"] == .string("in shop-eu"), "\(reread)")
    }

    @Test("failed sign-ins spread over two nodes meet one budget: the rate limits live in PostgreSQL")
    func sharedRateLimits() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let limits = ["--auth-rate-limits", "account=3/600"]
        let first = try await Self.node(url, limits)
        let second = try await Self.node(url, limits)
        let toolkit = "/identitytoolkit.googleapis.com/v1/accounts"
        let signedUp = try await first.client.request(
            "POST", toolkit + ":signUp", query: [("key", "k")],
            json: #"{"email":"limited@example.com","password":"secret-password"}"#)
        #expect(signedUp.status == 200, "\(signedUp)")
        let wrong = #"{"email":"limited@example.com","password":"wrong-password"}"#
        var messages: [String] = []
        for node in [first, second, first, second] {
            let attempt = try await node.client.request(
                "POST", toolkit + ":signInWithPassword", query: [("key", "k")], json: wrong)
            messages.append(try attempt.json()["error"]?["message"]?.stringValue ?? "\(attempt)")
        }
        #expect(messages.prefix(3).allSatisfy { $0.hasPrefix("INVALID_PASSWORD") }, "\(messages)")
        #expect(messages.last?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true, "\(messages)")
    }

    @Test(
        "hearth users, keys and indexes work on a PostgreSQL store beside its servers; backup and export refuse, naming pg_dump"
    )
    func commandsOnAPostgresStore() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let server = try await Self.node(url)
        let store = ["--store", url, "--project", "demo"]
        let added = try await runHearth(
            ["users", "add", "--email", "cli@example.com"] + store,
            environment: ["HEARTH_USER_PASSWORD": "secret-password"])
        #expect(added.termination == .exit(0), "\(added.stderr)")
        // The server signs the account in at once: it lives in PostgreSQL, not in a data directory.
        let signedIn = try await server.client.request(
            "POST", "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword", query: [("key", "k")],
            json: #"{"email":"cli@example.com","password":"secret-password","returnSecureToken":true}"#)
        #expect(signedIn.status == 200, "\(signedIn)")
        let listed = try await runHearth(["users", "list"] + store)
        #expect(listed.stdout.contains("cli@example.com"), "\(listed.stdout) \(listed.stderr)")
        let keys = try await runHearth(["keys", "list"] + store)
        #expect(keys.termination == .exit(0) && !keys.stdout.isEmpty, "\(keys.stdout) \(keys.stderr)")
        let indexes = try await runHearth(["indexes", "--store", url])
        #expect(indexes.termination == .exit(0), "\(indexes.stderr)")
        #expect(FS.json(indexes.stdout)["indexes"]?.arrayValue == [], "\(indexes.stdout)")
        let directory = try TemporaryDirectory()
        for command in [
            ["backup", "--store", url, directory.path + "/b"], ["export", "--store", url, directory.path + "/e"],
        ] {
            let refused = try await runHearth(command)
            #expect(refused.termination == .exit(1), "\(command): \(refused.stderr)")
            #expect(refused.stderr.contains("pg_dump"), "\(command): \(refused.stderr)")
        }
        try await server.stop()
    }
}
