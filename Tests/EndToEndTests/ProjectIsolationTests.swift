import Foundation
import HearthCore
import HearthTesting
import Testing

/// Issue #20: in development mode each project ID is its own set of documents, accounts, listeners and rules (in
/// `projects/{id}` of the data directory), as the emulator keeps them; named Firestore databases are kept apart
/// from `(default)`, in development mode on first use and otherwise once created through the Admin API.
@Suite("Projects and named databases kept apart", .timeLimit(.minutes(4)))
struct ProjectIsolationTests {
    static func doc(_ project: String, _ relative: String, database: String = "(default)") -> String {
        "\(FS.root(project, database: database))/\(relative)"
    }

    static func put(
        _ client: HTTPClient, _ project: String, _ relative: String, _ value: String, database: String = "(default)"
    ) async throws -> HTTPResult {
        try await client.request(
            "PATCH", doc(project, relative, database: database), json: FS.document(#"{"v":\#(Q.string(value))}"#))
    }

    @Test(
        "two projects on one dev server share no documents, accounts, listeners, rules or wipes")
    func projectsApart() async throws {
        let server = try await HearthProcess.start()
        let client = server.client
        try expectOK(try await Self.put(client, "alpha", "todos/a", "alpha's"))
        try expectOK(try await Self.put(client, "beta", "todos/b", "beta's"))
        expectError(try await client.get(Self.doc("beta", "todos/a")), 404, "NOT_FOUND")
        expectError(try await client.get(Self.doc("alpha", "todos/b")), 404, "NOT_FOUND")
        #expect(try await client.get(Self.doc("alpha", "todos/a")).status == 200)
        // Each project is a directory of its own, removable in one step.
        let projects = server.dataDirectory.url.appendingPathComponent("projects")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: projects.path)) == ["alpha", "beta"])

        // Queries and live listeners see their own project only.
        let ids = { (project: String) async throws -> [String] in
            let answer = try expectOK(
                try await client.request(
                    "POST", FS.root(project) + ":runQuery", json: #"{"structuredQuery":\#(Q.query("todos"))}"#))
            return (answer.arrayValue ?? []).compactMap { $0["document"]?["name"]?.stringValue.map(FS.id(of:)) }
        }
        #expect(try await ids("alpha") == ["a"])
        #expect(try await ids("beta") == ["b"])
        let listen = try ListenStream.open(server, project: "beta")
        try await listen.add(1, query: Q.query("todos"))
        #expect(try await listen.nextBatch().contains("change todos/b [1]"))
        try expectOK(try await Self.put(client, "alpha", "todos/a2", "alpha's second"))
        try expectOK(try await Self.put(client, "beta", "todos/b2", "beta's second"))
        let next = try await listen.nextBatch()
        #expect(next.contains("change todos/b2 [1]") && !next.contains { $0.contains("todos/a2") }, "\(next)")

        // Accounts: the same address signs up in both (it would be EMAIL_EXISTS in one shared set), each token
        // names its project, and a password is only good in its own project.
        let signUp = { (project: String, password: String) async throws -> HTTPResult in
            try await client.request(
                "POST", "\(Accounts.toolkit)/accounts:signUp", query: [("key", "k")],
                json: #"{"email":"ann@example.com","password":"\#(password)","returnSecureToken":true}"#,
                headers: ["X-Hearth-Project": project])
        }
        let alphaUser = try expectOK(try await signUp("alpha", "alpha-password"))
        let betaUser = try expectOK(try await signUp("beta", "beta-password"))
        #expect(alphaUser["localId"] != betaUser["localId"])
        let alphaClaims = Accounts.claims(alphaUser["idToken"]?.stringValue ?? "")
        #expect(alphaClaims?["aud"]?.stringValue == "alpha")
        let wrongProject = try await client.request(
            "POST", "\(Accounts.toolkit)/accounts:signInWithPassword", query: [("key", "k")],
            json: #"{"email":"ann@example.com","password":"alpha-password","returnSecureToken":true}"#,
            headers: ["X-Hearth-Project": "beta"])
        #expect(wrongProject.status == 400, "\(wrongProject)")
        // The emulator's account wipe, by path, empties one project.
        try expectOK(try await client.request("DELETE", "/emulator/v1/projects/alpha/accounts"))
        let again = try await signUp("alpha", "alpha-password")
        try expectOK(again)
        expectAuthError(try await signUp("beta", "beta-password"), "EMAIL_EXISTS")

        // Rules deployed to one project bind that project only.
        let denyAll =
            "rules_version = '2';\nservice cloud.firestore { match /databases/{db}/documents { match /{d=**} { allow read, write: if false; } } }"
        try expectOK(
            try await client.request("PUT", "/emulator/v1/projects/alpha:securityRules", body: Array(denyAll.utf8)))
        expectError(try await Self.put(client, "alpha", "todos/a3", "refused"), 403, "PERMISSION_DENIED")
        try expectOK(try await Self.put(client, "beta", "todos/b3", "allowed"))

        // The emulator's document wipe empties one project.
        try expectOK(try await client.request("DELETE", "/emulator/v1/projects/beta/databases/(default)/documents"))
        #expect(try await ids("beta") == [])
        try expectOK(
            try await client.request(
                "PUT", "/emulator/v1/projects/alpha:securityRules",
                body: Array(
                    "rules_version = '2';\nservice cloud.firestore { match /databases/{db}/documents { match /{d=**} { allow read, write: if true; } } }"
                        .utf8)))
        #expect(try await ids("alpha") == ["a", "a2"])
        listen.client.close()
        try await server.stop()
    }

    @Test(
        "a named database is its own set of documents, queries, listeners and wipes in dev mode")
    func namedDatabaseInDevMode() async throws {
        let server = try await HearthProcess.start()
        let client = server.client
        try expectOK(try await Self.put(client, "demo", "todos/n", "named", database: "todo-db"))
        try expectOK(try await Self.put(client, "demo", "todos/d", "default"))
        expectError(try await client.get(Self.doc("demo", "todos/n")), 404, "NOT_FOUND")
        let named = try expectOK(try await client.get(Self.doc("demo", "todos/n", database: "todo-db")))
        #expect(named["name"]?.stringValue == FS.name("todos/n", database: "todo-db"))
        // On SQLite its own file in the data directory (on PostgreSQL a schema of its own).
        if server.storeArguments.isEmpty {
            #expect(
                FileManager.default.fileExists(
                    atPath: server.dataDirectory.url.appendingPathComponent("databases/todo-db/hearth.sqlite").path))
        }
        let listen = try ListenStream.open(server, database: "todo-db")
        try await listen.add(1, query: Q.query("todos"))
        #expect(try await listen.nextBatch().contains("change todos/n [1]"))
        try expectOK(try await Self.put(client, "demo", "todos/d2", "default again"))
        try expectOK(try await Self.put(client, "demo", "todos/n2", "named again", database: "todo-db"))
        let next = try await listen.nextBatch()
        #expect(next.contains("change todos/n2 [1]") && !next.contains { $0.contains("todos/d2") }, "\(next)")
        // Commits name their database in the document names; one naming another database is refused.
        let wrong = try await client.request(
            "POST", FS.root("demo", database: "todo-db") + ":commit",
            json: #"{"writes":[{"update":{"name":"\#(FS.name("todos/x"))","fields":{}}}]}"#)
        #expect(wrong.status == 400, "\(wrong)")
        try expectOK(
            try await client.request("DELETE", "/emulator/v1/projects/demo/databases/todo-db/documents"))
        expectError(try await client.get(Self.doc("demo", "todos/n", database: "todo-db")), 404, "NOT_FOUND")
        #expect(try await client.get(Self.doc("demo", "todos/d")).status == 200)
        expectError(
            try await client.get(Self.doc("demo", "todos/n", database: "Not_Valid")), 400, "INVALID_ARGUMENT",
            messageContains: ["Invalid database ID"])
        listen.client.close()
        try await server.stop()
    }

    @Test(
        "outside dev mode a named database exists once created through the Admin API, and is gone once deleted")
    func namedDatabaseInProduction() async throws {
        var options = HearthProcess.Options.production
        let adminKey = "e2e-admin-key-\(UUID().uuidString)"
        options.environment = ["HEARTH_ADMIN_KEY": adminKey]
        let server = try await HearthProcess.start(options)
        let client = server.client
        let admin = ["Authorization": "Bearer \(adminKey)"]
        let base = "/v1/projects/demo/databases"
        expectError(try await Self.put(client, "demo", "a/b", "x", database: "orders"), 404, "NOT_FOUND")
        expectError(try await client.request("POST", base, query: [("databaseId", "orders")]), 403, "PERMISSION_DENIED")
        let created = try expectOK(
            try await client.request("POST", base, query: [("databaseId", "orders")], headers: admin))
        #expect(
            created["done"] == true && created["response"]?["name"]?.stringValue == "projects/demo/databases/orders")
        expectError(
            try await client.request("POST", base, query: [("databaseId", "orders")], headers: admin), 409,
            "ALREADY_EXISTS")
        expectError(
            try await client.request("POST", base, query: [("databaseId", "-bad")], headers: admin), 400,
            "INVALID_ARGUMENT")
        try expectOK(try await Self.put(client, "demo", "a/b", "in orders", database: "orders"))
        expectError(try await client.get(Self.doc("demo", "a/b")), 404, "NOT_FOUND")
        let list = try expectOK(try await client.request("GET", base, headers: admin))
        #expect(
            (list["databases"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue } == [
                "projects/demo/databases/(default)", "projects/demo/databases/orders",
            ])
        // A restart keeps it: it is a directory in the data directory.
        try await server.stop()
        let restarted = try await server.restart(options)
        let kept = try expectOK(try await restarted.client.get(Self.doc("demo", "a/b", database: "orders")))
        #expect(kept["fields"]?["v"]?["stringValue"]?.stringValue == "in orders")
        try expectOK(try await restarted.client.request("DELETE", "\(base)/orders", headers: admin))
        expectError(try await restarted.client.get(Self.doc("demo", "a/b", database: "orders")), 404, "NOT_FOUND")
        expectError(
            try await restarted.client.request("DELETE", "\(base)/(default)", headers: admin), 400,
            "FAILED_PRECONDITION")
        // Another project is not served outside development mode.
        expectError(try await Self.put(restarted.client, "other", "a/b", "x"), 404, "NOT_FOUND")
        try await restarted.stop()
    }

    @Test(
        "outside dev mode `--project demo,shop` serves shop beside demo, apart from it, and nothing else")
    func configuredProjects() async throws {
        var options = HearthProcess.Options.production
        options.extraArguments += ["--project", "demo,shop"]
        let server = try await HearthProcess.start(options)
        let client = server.client
        try expectOK(try await Self.put(client, "shop", "orders/o1", "shop's"))
        try expectOK(try await Self.put(client, "demo", "orders/o2", "demo's"))
        expectError(try await client.get(Self.doc("demo", "orders/o1")), 404, "NOT_FOUND")
        expectError(try await client.get(Self.doc("shop", "orders/o2")), 404, "NOT_FOUND")
        expectError(
            try await Self.put(client, "other", "orders/o3", "x"), 404, "NOT_FOUND", messageContains: ["not served"])
        // On SQLite its own file (on PostgreSQL a schema of its own).
        if server.storeArguments.isEmpty {
            #expect(
                FileManager.default.fileExists(
                    atPath: server.dataDirectory.url.appendingPathComponent("projects/shop/hearth.sqlite").path))
        }
        try await server.stop()
        // A list naming a project twice, or an ID that cannot be a directory, is refused before serving.
        for bad in ["demo,demo", "demo,../x", "demo,"] {
            let refused = try await runHearth(["serve", "--data", server.dataDirectory.path, "--project", bad])
            #expect(
                refused.termination != .exit(0) && refused.stderr.contains("--project"), "\(bad): \(refused.stderr)")
        }
    }
}
