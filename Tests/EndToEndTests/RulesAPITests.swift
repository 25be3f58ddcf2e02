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
