import Foundation
import HearthCore
import HearthTesting
import Testing

/// Under deny-all rules a caller learns nothing about documents it may not write (issue 14, item 2): every
/// precondition is answered `PERMISSION_DENIED`, and no error message carries a document's update time. And
/// `:listCollectionIds` is for privileged callers only (item 3).
@Suite("Preconditions and listCollectionIds under deny-all rules", .timeLimit(.minutes(3)))
struct WriteAuthorizationTests {
    static let denyAll = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /{document=**} {
              allow read, write: if false;
            }
          }
        }
        """

    /// A server with deny-all rules (development mode unless `dev` is false, then with an admin key).
    static func withDenyAll(dev: Bool = true, _ body: (HearthProcess) async throws -> Void) async throws {
        let directory = try TemporaryDirectory("hearth-deny-all")
        defer { directory.remove() }
        let rules = directory.url.appendingPathComponent("deny.rules")
        try Self.denyAll.write(to: rules, atomically: true, encoding: .utf8)
        var options = HearthProcess.Options()
        options.dev = dev
        options.project = "demo"
        options.extraArguments = ["--rules", rules.path]
        options.environment["HEARTH_ADMIN_KEY"] = adminKey
        try await withHearth(options, body)
    }

    static let adminKey = "an-admin-key-for-tests-0123456789"
    static let admin = ["Authorization": "Bearer \(adminKey)"]

    @Test("an unauthorized caller gets PERMISSION_DENIED whatever the precondition, and never an update time")
    func preconditions() async throws {
        try await Self.withDenyAll { server in
            let client = server.client
            let collection = FS.unique("secret")
            let seeded = try expectOK(
                await client.request(
                    "PATCH", FS.path("\(collection)/exists"), json: FS.document(intFields(1)), headers: Self.admin))
            let updateTime = try #require(seeded["updateTime"]?.stringValue)
            let account = try await client.signUp(Accounts.uniqueEmail("prober"))
            let user = ["Authorization": "Bearer \(account["idToken"]?.stringValue ?? "")"]
            let body = FS.document(intFields(2))
            let stale = "2001-01-01T00:00:00Z"
            for headers in [[:], user] {
                let probes: [(String, String, [(String, String)])] = [
                    ("PATCH", "\(collection)/exists", [("currentDocument.exists", "false")]),
                    ("PATCH", "\(collection)/missing", [("currentDocument.exists", "true")]),
                    ("PATCH", "\(collection)/exists", [("currentDocument.updateTime", stale)]),
                    ("PATCH", "\(collection)/missing", [("currentDocument.updateTime", stale)]),
                    ("DELETE", "\(collection)/missing", [("currentDocument.exists", "true")]),
                    ("DELETE", "\(collection)/exists", [("currentDocument.exists", "false")]),
                    ("POST", collection, [("documentId", "exists")]),
                ]
                for (method, path, query) in probes {
                    let result = try await client.request(
                        method, FS.path(path), query: query, body: method == "DELETE" ? nil : Array(body.utf8),
                        headers: headers)
                    expectError(result, 403, "PERMISSION_DENIED")
                    #expect(!result.text.contains(updateTime), "\(method) \(path) \(query) → \(result)")
                }
                let commit = try await client.request(
                    "POST", FS.root() + ":commit",
                    json: #"""
                        {"writes":[{"update":{"name":"\#(FS.name("\(collection)/exists"))","fields":{}},
                        "currentDocument":{"updateTime":"\#(stale)"}}]}
                        """#, headers: headers)
                expectError(commit, 403, "PERMISSION_DENIED")
            }
            // The administrator, whom the rules do not bind, still gets the precondition's answer, without the
            // stored update time.
            let failed = try await client.request(
                "PATCH", FS.path("\(collection)/exists"), query: [("currentDocument.updateTime", stale)],
                json: body, headers: Self.admin)
            expectError(failed, 400, "FAILED_PRECONDITION")
            #expect(!failed.text.contains(updateTime), "\(failed)")
            let exists = try await client.request(
                "POST", FS.path(collection), query: [("documentId", "exists")], json: body, headers: Self.admin)
            expectError(exists, 409, "ALREADY_EXISTS")
        }
    }

    @Test("listCollectionIds: the admin credential only outside development mode")
    func listCollectionIDs() async throws {
        try await Self.withDenyAll(dev: false) { server in
            let client = server.client
            let collection = FS.unique("users")
            _ = try expectOK(
                await client.request(
                    "PATCH", FS.path("\(collection)/b/private/p"), json: FS.document(intFields(1)),
                    headers: Self.admin))
            let account = try await client.signUp(Accounts.uniqueEmail("lister"))
            let user = ["Authorization": "Bearer \(account["idToken"]?.stringValue ?? "")"]
            for parent in [FS.root(), FS.path("\(collection)/b")] {
                for headers in [[:], user] {
                    let result = try await client.request(
                        "POST", parent + ":listCollectionIds", json: "{}", headers: headers)
                    expectError(result, 403, "PERMISSION_DENIED")
                    #expect(!result.text.contains("private"), "\(result)")
                }
            }
            let listed = try expectOK(
                await client.request(
                    "POST", FS.path("\(collection)/b") + ":listCollectionIds", json: "{}", headers: Self.admin))
            #expect(listed["collectionIds"] == ["private"], "\(listed)")
        }
    }

    @Test("listCollectionIds stays open in development mode, as the emulator")
    func listCollectionIDsInDevelopment() async throws {
        try await Self.withDenyAll { server in
            let collection = FS.unique("open")
            _ = try expectOK(
                await server.client.request(
                    "PATCH", FS.path("\(collection)/a/sub/s"), json: FS.document(intFields(1)), headers: Self.admin))
            let listed = try expectOK(
                await server.client.request("POST", FS.path("\(collection)/a") + ":listCollectionIds", json: "{}"))
            #expect(listed["collectionIds"] == ["sub"], "\(listed)")
        }
    }
}
