import Foundation
import HearthCore
import HearthTesting
import Testing

/// Firestore's Admin API list of composite indexes, with Hearth's `missingIndexes`: what the console's Indexes page
/// shows — declared indexes and their state, and the ones refused queries asked for.
@Suite("Indexes over HTTP: declared, building or ready, and missing")
struct IndexesAPITests {
    static let adminKey = "indexes-api-admin-key-0123456789"

    @Test("declared indexes with their state; a refused query's index is listed as missing until declared")
    func listAndMissing() async throws {
        let files = try TemporaryDirectory("hearth-indexes-api")
        defer { files.remove() }
        let file = files.url.appendingPathComponent("indexes.json")
        let declared = indexJSON("todos", [("owner", "ASCENDING"), ("date", "DESCENDING")])
        try Data(#"{"indexes":[\#(declared)]}"#.utf8).write(to: file)
        var options = HearthProcess.Options()
        options.dev = false
        options.environment = ["HEARTH_ADMIN_KEY": Self.adminKey]
        options.extraArguments = ["--indexes", file.path, "--rules", OpenRules.path]
        try await withHearth(options) { server in
            let client = server.client
            let admin = ["Authorization": "Bearer \(Self.adminKey)"]
            let all = "/v1/projects/demo/databases/(default)/collectionGroups/-/indexes"
            expectError(try await client.get(all), 403, "PERMISSION_DENIED")

            var listed = try expectOK(try await client.request("GET", all, headers: admin))
            for _ in 0..<200 where listed["indexes"]?[0]?["state"] != "READY" {
                try await Task.sleep(for: .milliseconds(25))
                listed = try expectOK(try await client.request("GET", all, headers: admin))
            }
            let index = try #require(listed["indexes"]?[0])
            #expect(index["state"] == "READY")
            #expect(index["queryScope"] == "COLLECTION")
            #expect(
                index["name"]?.stringValue?.hasPrefix(
                    "projects/demo/databases/(default)/collectionGroups/todos/indexes/") == true)
            #expect(index["fields"]?[1]?["fieldPath"] == "date" && index["fields"]?[1]?["order"] == "DESCENDING")
            #expect(listed["missingIndexes"]?.arrayValue?.isEmpty == true)

            // A query no index serves is refused, and its index shows up as missing, in declarable form.
            let query =
                #"{"structuredQuery":{"from":[{"collectionId":"notes"}],"where":{"fieldFilter":{"field":{"fieldPath":"owner"},"op":"EQUAL","value":{"stringValue":"ann"}}},"orderBy":[{"field":{"fieldPath":"rank"},"direction":"ASCENDING"}]}}"#
            let refused = try await client.request(
                "POST", "/v1/projects/demo/databases/(default)/documents:runQuery", json: query, headers: admin)
            expectError(refused, 400, "FAILED_PRECONDITION", messageContains: ["requires an index"])
            let after = try expectOK(try await client.request("GET", all, headers: admin))
            let missing = try #require(after["missingIndexes"]?[0])
            #expect(missing["collectionGroup"] == "notes")
            #expect(missing["fields"]?[0]?["fieldPath"] == "owner")
            #expect(missing["fields"]?[1]?["fieldPath"] == "rank")
            #expect(after["missingIndexes"]?.arrayValue?.count == 1)

            // One collection group only.
            let todos = try expectOK(
                try await client.request(
                    "GET", "/v1/projects/demo/databases/(default)/collectionGroups/todos/indexes", headers: admin))
            #expect(todos["indexes"]?.arrayValue?.count == 1)
            #expect(todos["missingIndexes"]?.arrayValue?.isEmpty == true)
        }
    }
}
