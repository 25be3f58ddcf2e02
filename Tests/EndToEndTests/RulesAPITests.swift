import Foundation
import HearthCore
import HearthTesting
import Testing

/// The rules endpoints the console's Rules page uses: read and replace the document and storage rules, and judge
/// one request in the playground — in development mode, or outside it with the admin credential only.
@Suite("Rules over HTTP: read, replace, playground")
struct RulesAPITests {
    static let adminKey = "rules-api-admin-key-0123456789"
    static let owned = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /todos/{id} {
              allow read: if request.auth != null && resource.data.owner == request.auth.uid;
              allow create: if request.auth != null && request.resource.data.owner == request.auth.uid;
            }
          }
        }
        """

    @Test("outside dev mode only the admin reads and replaces rules; an error is refused at its line and column")
    func readAndReplace() async throws {
        var options = HearthProcess.Options()
        options.dev = false
        options.environment = ["HEARTH_ADMIN_KEY": Self.adminKey]
        try await withHearth(options) { server in
            let client = server.client
            let admin = ["Authorization": "Bearer \(Self.adminKey)"]
            let path = "/emulator/v1/projects/demo:securityRules"
            expectError(try await client.request("GET", path), 403, "PERMISSION_DENIED")
            expectError(
                try await client.request("PUT", path, body: Array(Self.owned.utf8)), 403, "PERMISSION_DENIED")

            let body = JSONValue.object(["rules": ["files": [["content": .string(Self.owned)]]]])
            try expectOK(try await client.request("PUT", path, json: body.jsonString, headers: admin))
            let read = try expectOK(try await client.request("GET", path, headers: admin))
            #expect(read["rules"]?["files"]?[0]?["content"] == .string(Self.owned))

            let broken = "service cloud.firestore {\n  match /x {\n    allow read: if ;\n  }\n}"
            expectError(
                try await client.request("PUT", path, body: Array(broken.utf8), headers: admin), 400,
                "INVALID_ARGUMENT", messageContains: ["3:20"])
            let still = try expectOK(try await client.request("GET", path, headers: admin))
            #expect(still["rules"]?["files"]?[0]?["content"] == .string(Self.owned), "the previous rules stay")

            let storage =
                "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n    match /{all=**} { allow read: if true; }\n  }\n}"
            let storagePath = "/emulator/v1/projects/demo:storageRules"
            try expectOK(try await client.request("PUT", storagePath, body: Array(storage.utf8), headers: admin))
            let storageRead = try expectOK(try await client.request("GET", storagePath, headers: admin))
            #expect(storageRead["rules"]?["files"]?[0]?["content"] == .string(storage))
        }
    }

    @Test("deployed rules stay in force across a restart; a rules file named at start takes precedence")
    func deployedRulesOutliveARestart() async throws {
        var options = HearthProcess.Options()
        options.dev = false
        options.environment = ["HEARTH_ADMIN_KEY": Self.adminKey]
        let admin = ["Authorization": "Bearer \(Self.adminKey)"]
        let path = "/emulator/v1/projects/demo:securityRules"
        let first = try await HearthProcess.start(options)
        let body = JSONValue.object(["rules": ["files": [["content": .string(Self.owned)]]]])
        try expectOK(try await first.client.request("PUT", path, json: body.jsonString, headers: admin))
        let tree = #"{"rules":{"open":{".read":true}}}"#
        try expectOK(
            try await first.client.request("PUT", "/.settings/rules.json", body: Array(tree.utf8), headers: admin))
        #expect(try await first.stop() == .exit(0))

        let second = try await first.restart()
        let read = try expectOK(try await second.client.request("GET", path, headers: admin))
        #expect(read["rules"]?["files"]?[0]?["content"] == .string(Self.owned))
        // In force, not only shown: the tree's deployed rules let a client read /open, closed without them.
        #expect(try await second.client.get("/open.json").status == 200)
        #expect(try await second.client.get("/closed.json").status == 401)
        #expect(try await second.stop() == .exit(0))

        let file = try TemporaryDirectory("hearth-rules-file")
        defer { file.remove() }
        let named =
            "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n  }\n}\n"
        try named.write(toFile: file.path + "/firestore.rules", atomically: true, encoding: .utf8)
        var withFile = options
        withFile.extraArguments = ["--rules", file.path + "/firestore.rules"]
        let third = try await second.restart(withFile)
        let shown = try expectOK(try await third.client.request("GET", path, headers: admin))
        #expect(shown["rules"]?["files"]?[0]?["content"] == .string(named))
        _ = try await third.stop()
    }

    @Test(
        "a named database's own rules (?database=ID) bind it alone, are read back, and outlive a restart")
    func namedDatabaseRules() async throws {
        let first = try await HearthProcess.start()
        let locked = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /{path=**} { allow read: if true; }
              }
            }
            """
        let body = JSONValue.object(["rules": ["files": [["content": .string(locked)]]]])
        let path = "/emulator/v1/projects/demo:securityRules"
        try expectOK(
            try await first.client.request("PUT", path, query: [("database", "audit-db")], json: body.jsonString))
        expectError(
            try await first.client.request("PUT", path, query: [("database", "Bad_ID")], json: body.jsonString), 400,
            "INVALID_ARGUMENT")
        let named = "\(FS.root(database: "audit-db"))/entries/e"
        let check = { (server: HearthProcess) async throws in
            expectError(
                try await server.client.request("PATCH", named, json: FS.document("{}")), 403, "PERMISSION_DENIED")
            // The (default) database and other named ones keep the project's rules (open in --dev).
            try expectOK(try await server.client.request("PATCH", FS.path("entries/e"), json: FS.document("{}")))
            try expectOK(
                try await server.client.request(
                    "PATCH", "\(FS.root(database: "other-db"))/entries/e", json: FS.document("{}")))
            let own = try expectOK(try await server.client.request("GET", path, query: [("database", "audit-db")]))
            #expect(own["rules"]?["files"]?[0]?["content"] == .string(locked))
            let project = try expectOK(try await server.client.request("GET", path))
            #expect(project["rules"]?["files"]?[0]?["content"] != .string(locked))
        }
        try await check(first)
        #expect(try await first.stop() == .exit(0))
        let second = try await first.restart()
        try await check(second)
        _ = try await second.stop()
    }

    @Test("the playground judges one request on the rules in force and names the rule that decided")
    func playground() async throws {
        var options = HearthProcess.Options()
        options.dev = false
        options.environment = ["HEARTH_ADMIN_KEY": Self.adminKey]
        try await withHearth(options) { server in
            let client = server.client
            let admin = ["Authorization": "Bearer \(Self.adminKey)"]
            try expectOK(
                try await client.request(
                    "PUT", "/emulator/v1/projects/demo:securityRules", body: Array(Self.owned.utf8), headers: admin))
            func judge(_ test: JSONValue) async throws -> JSONValue {
                try expectOK(
                    try await client.request(
                        "POST", "/emulator/v1/projects/demo:testRules",
                        json: JSONValue.object(["rules": "firestore", "test": test]).jsonString, headers: admin))
            }
            let mine = try await judge([
                "auth": "alice", "method": "get", "path": "todos/t1", "resource": ["owner": "alice"],
            ])
            #expect(mine["allowed"] == true)
            #expect(mine["grantedBy"]?["line"] == 5, "\(mine)")
            let theirs = try await judge([
                "auth": "bob", "method": "get", "path": "todos/t1", "resource": ["owner": "alice"],
            ])
            #expect(theirs["allowed"] == false)
            #expect(theirs["outcomes"]?[0]?["line"] == 5)
            #expect(theirs["explanation"]?.stringValue?.hasPrefix("denied") == true)
            let nowhere = try await judge(["auth": "bob", "method": "get", "path": "elsewhere/x"])
            #expect(nowhere["allowed"] == false)
            #expect(nowhere["outcomes"]?.arrayValue?.isEmpty == true)

            // A draft is judged without being deployed.
            let draft =
                "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{d}/documents {\n    match /{all=**} { allow read: if true; }\n  }\n}"
            let drafted = try expectOK(
                try await client.request(
                    "POST", "/emulator/v1/projects/demo:testRules",
                    json: JSONValue.object([
                        "source": .string(draft), "test": ["auth": "bob", "method": "get", "path": "elsewhere/x"],
                    ]).jsonString, headers: admin))
            #expect(drafted["allowed"] == true)
            let stillDenied = try await judge(["auth": "bob", "method": "get", "path": "elsewhere/x"])
            #expect(stillDenied["allowed"] == false)

            expectError(
                try await client.request(
                    "POST", "/emulator/v1/projects/demo:testRules",
                    json: #"{"test":{"method":"fly","path":"todos/t1"}}"#, headers: admin),
                400, "INVALID_ARGUMENT")
            expectError(
                try await client.request(
                    "POST", "/emulator/v1/projects/demo:testRules", json: #"{"test":{}}"#), 403, "PERMISSION_DENIED")
        }
    }
}
