import Foundation
import HearthCore
import HearthTesting
import Testing

/// Users A and B, signed up through the accounts API of one server running `Examples/rules/todos.rules`, try the
/// document API against each other's todos; every outcome must match the rules.
@Suite("Security rules on the document API", .timeLimit(.minutes(3)))
struct RulesDocumentTests {
    static let rulesPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Examples/rules/todos.rules").path

    struct User {
        var uid: String
        var headers: [String: String]
    }

    static func withRulesServer(_ body: (HearthProcess, User, User) async throws -> Void) async throws {
        var options = HearthProcess.Options()
        options.extraArguments = ["--rules", rulesPath]
        try await withHearth(options) { server in
            func user(_ name: String) async throws -> User {
                let account = try await server.client.signUp("\(name)-\(UUID().uuidString.prefix(8))@example.com")
                let uid = try #require(account["localId"]?.stringValue)
                let token = try #require(account["idToken"]?.stringValue)
                return User(uid: uid, headers: ["Authorization": "Bearer \(token)"])
            }
            try await body(server, try await user("a"), try await user("b"))
        }
    }

    static func todo(_ owner: String, _ title: String = "task", done: Bool = false) -> String {
        #"{"fields":{"owner":{"stringValue":"\#(owner)"},"title":{"stringValue":"\#(title)"},"done":{"booleanValue":\#(done)}}}"#
    }

    static func denied(_ result: HTTPResult, sourceLocation: SourceLocation = #_sourceLocation) {
        expectError(
            result, 403, "PERMISSION_DENIED", messageContains: ["Missing or insufficient permissions."],
            sourceLocation: sourceLocation)
    }

    static func query(_ filter: String?) -> String {
        let whereClause = filter.map { #","where":\#($0)"# } ?? ""
        return #"{"structuredQuery":{"from":[{"collectionId":"todos"}]\#(whereClause)}}"#
    }

    static func ownerFilter(_ uid: String) -> String {
        #"{"fieldFilter":{"field":{"fieldPath":"owner"},"op":"EQUAL","value":{"stringValue":"\#(uid)"}}}"#
    }

    @Test("create, get, update and delete: own documents only")
    func crud() async throws {
        try await Self.withRulesServer { server, a, b in
            let client = server.client
            let create = { (user: User, id: String, owner: String) async throws -> HTTPResult in
                try await client.request(
                    "POST", FS.path("todos"), query: [("documentId", id)], json: Self.todo(owner), headers: user.headers
                )
            }
            try expectOK(try await create(a, "a1", a.uid))
            try expectOK(try await create(b, "b1", b.uid))
            Self.denied(try await create(a, "forged", b.uid))
            Self.denied(
                try await client.request(
                    "POST", FS.path("todos"), query: [("documentId", "anon")], json: Self.todo(a.uid)))

            try expectOK(try await client.request("GET", FS.path("todos/a1"), headers: a.headers))
            Self.denied(try await client.request("GET", FS.path("todos/b1"), headers: a.headers))
            Self.denied(try await client.request("GET", FS.path("todos/a1")))
            // A missing document is denied too (resource is null), so existence does not leak.
            Self.denied(try await client.request("GET", FS.path("todos/nothing"), headers: a.headers))

            try expectOK(
                try await client.request(
                    "PATCH", FS.path("todos/a1"), json: Self.todo(a.uid, done: true), headers: a.headers))
            Self.denied(
                try await client.request(
                    "PATCH", FS.path("todos/b1"), json: Self.todo(b.uid, "hijacked"), headers: a.headers))
            Self.denied(
                try await client.request("PATCH", FS.path("todos/a1"), json: Self.todo(b.uid), headers: a.headers))
            Self.denied(try await client.request("DELETE", FS.path("todos/b1"), headers: a.headers))

            // Nothing of the denied requests was applied.
            let b1 = try expectOK(try await client.request("GET", FS.path("todos/b1"), headers: b.headers))
            #expect(b1["fields"]?["title"]?["stringValue"] == .string("task"))
            Self.denied(try await client.request("GET", FS.path("todos/forged"), headers: b.headers))

            try expectOK(try await client.request("DELETE", FS.path("todos/a1"), headers: a.headers))
            // The admin credential bypasses rules.
            try expectOK(
                try await client.request("GET", FS.path("todos/b1"), headers: ["Authorization": "Bearer owner"]))
        }
    }

    @Test("queries are judged from their constraints; lists and batchGet too")
    func queries() async throws {
        try await Self.withRulesServer { server, a, b in
            let client = server.client
            for (user, id) in [(a, "qa"), (b, "qb")] {
                try expectOK(
                    try await client.request(
                        "POST", FS.path("todos"), query: [("documentId", id)], json: Self.todo(user.uid),
                        headers: user.headers))
            }
            let mine = try expectOK(
                try await client.request(
                    "POST", "\(FS.root()):runQuery", json: Self.query(Self.ownerFilter(a.uid)), headers: a.headers))
            #expect(mine.arrayValue?.compactMap { $0["document"]?["name"]?.stringValue } == [FS.name("todos/qa")])
            Self.denied(
                try await client.request(
                    "POST", "\(FS.root()):runQuery", json: Self.query(Self.ownerFilter(b.uid)), headers: a.headers))
            Self.denied(
                try await client.request("POST", "\(FS.root()):runQuery", json: Self.query(nil), headers: a.headers))
            let count =
                #"{"structuredAggregationQuery":{"structuredQuery":{"from":[{"collectionId":"todos"}],"where":\#(Self.ownerFilter(a.uid))},"aggregations":[{"alias":"n","count":{}}]}}"#
            try expectOK(
                try await client.request("POST", "\(FS.root()):runAggregationQuery", json: count, headers: a.headers))
            Self.denied(
                try await client.request(
                    "POST", "\(FS.root()):runAggregationQuery",
                    json: count.replacingOccurrences(of: a.uid, with: b.uid),
                    headers: a.headers))
            Self.denied(try await client.request("GET", FS.path("todos"), headers: a.headers))
            let batch = #"{"documents":["\#(FS.name("todos/qa"))","\#(FS.name("todos/qb"))"]}"#
            Self.denied(try await client.request("POST", "\(FS.root()):batchGet", json: batch, headers: a.headers))
            let own = #"{"documents":["\#(FS.name("todos/qa"))"]}"#
            try expectOK(try await client.request("POST", "\(FS.root()):batchGet", json: own, headers: a.headers))
        }
    }

    @Test("range and array-contains filters prove rules for every document a query can return")
    func rangeQueries() async throws {
        try await Self.withRulesServer { server, a, b in
            let client = server.client
            let rules = """
                rules_version = '2';
                service cloud.firestore {
                  match /databases/{database}/documents {
                    match /scores/{id} {
                      allow create: if request.auth != null;
                      allow list: if request.auth != null && resource.data.points > 5;
                    }
                    match /rooms/{id} {
                      allow create: if request.auth != null;
                      allow list: if request.auth.uid in resource.data.members;
                    }
                  }
                }
                """
            let body = JSONValue.object(["rules": .object(["files": .array([.object(["content": .string(rules)])])])])
            try expectOK(
                try await client.request("PUT", "/emulator/v1/projects/demo:securityRules", json: body.jsonString))
            for points in [3, 7, 20] {
                try expectOK(
                    try await client.request(
                        "POST", FS.path("scores"), query: [("documentId", "p\(points)")],
                        json: #"{"fields":{"points":{"integerValue":"\#(points)"}}}"#, headers: a.headers))
            }
            try expectOK(
                try await client.request(
                    "POST", FS.path("rooms"), query: [("documentId", "r1")],
                    json: #"{"fields":{"members":{"arrayValue":{"values":[{"stringValue":"\#(a.uid)"}]}}}}"#,
                    headers: a.headers))
            func query(_ collection: String, _ field: String, _ op: String, _ value: String) -> String {
                #"{"structuredQuery":{"from":[{"collectionId":"\#(collection)"}],"where":{"fieldFilter":{"field":{"fieldPath":"\#(field)"},"op":"\#(op)","value":\#(value)}}}}"#
            }
            let high = try expectOK(
                try await client.request(
                    "POST", "\(FS.root()):runQuery",
                    json: query("scores", "points", "GREATER_THAN", #"{"integerValue":"10"}"#),
                    headers: a.headers))
            #expect(high.arrayValue?.compactMap { $0["document"]?["name"]?.stringValue } == [FS.name("scores/p20")])
            try expectOK(
                try await client.request(
                    "POST", "\(FS.root()):runQuery",
                    json: query("scores", "points", "GREATER_THAN", #"{"integerValue":"5"}"#), headers: a.headers))
            // p3 could be returned: the whole query is denied, not filtered.
            Self.denied(
                try await client.request(
                    "POST", "\(FS.root()):runQuery",
                    json: query("scores", "points", "GREATER_THAN", #"{"integerValue":"2"}"#), headers: a.headers))
            Self.denied(
                try await client.request(
                    "POST", "\(FS.root()):runQuery",
                    json: query("scores", "points", "GREATER_THAN_OR_EQUAL", #"{"integerValue":"5"}"#),
                    headers: a.headers))
            let rooms = try expectOK(
                try await client.request(
                    "POST", "\(FS.root()):runQuery",
                    json: query("rooms", "members", "ARRAY_CONTAINS", #"{"stringValue":"\#(a.uid)"}"#),
                    headers: a.headers))
            #expect(rooms.arrayValue?.compactMap { $0["document"]?["name"]?.stringValue } == [FS.name("rooms/r1")])
            Self.denied(
                try await client.request(
                    "POST", "\(FS.root()):runQuery",
                    json: query("rooms", "members", "ARRAY_CONTAINS", #"{"stringValue":"\#(a.uid)"}"#),
                    headers: b.headers))
        }
    }

    @Test("a commit is judged as a whole: one denied write and nothing is applied")
    func commits() async throws {
        try await Self.withRulesServer { server, a, b in
            let client = server.client
            let write = { (id: String, owner: String) in
                #"{"update":{"name":"\#(FS.name("todos/\(id)"))","fields":{"owner":{"stringValue":"\#(owner)"},"title":{"stringValue":"t"},"done":{"booleanValue":false}}}}"#
            }
            let mixed = #"{"writes":[\#(write("c1", a.uid)),\#(write("c2", b.uid))]}"#
            Self.denied(try await client.request("POST", "\(FS.root()):commit", json: mixed, headers: a.headers))
            Self.denied(try await client.request("GET", FS.path("todos/c1"), headers: a.headers))
            let good = #"{"writes":[\#(write("c1", a.uid)),\#(write("c3", a.uid))]}"#
            try expectOK(try await client.request("POST", "\(FS.root()):commit", json: good, headers: a.headers))
            try expectOK(try await client.request("GET", FS.path("todos/c3"), headers: a.headers))
        }
    }

    @Test("writes are judged inside the commit: request.time is the commit time, getAfter sees the whole commit")
    func judgedInsideTheCommit() async throws {
        try await Self.withRulesServer { server, a, _ in
            let client = server.client
            let rules = """
                rules_version = '2';
                service cloud.firestore {
                  match /databases/{database}/documents {
                    match /stamped/{id} {
                      allow read: if true;
                      allow create: if request.auth != null && request.resource.data.at == request.time
                        && getAfter(/databases/$(database)/documents/index/$(id)).data.by == request.auth.uid;
                    }
                    match /index/{id} {
                      allow create: if request.auth != null && request.resource.data.by == request.auth.uid
                        && existsAfter(/databases/$(database)/documents/stamped/$(id));
                    }
                  }
                }
                """
            let body = JSONValue.object(["rules": .object(["files": .array([.object(["content": .string(rules)])])])])
            try expectOK(
                try await client.request("PUT", "/emulator/v1/projects/demo:securityRules", json: body.jsonString))
            func commit(_ id: String, stamp: String, by: String) -> String {
                let time =
                    stamp == "server"
                    ? #""updateTransforms":[{"fieldPath":"at","setToServerValue":"REQUEST_TIME"}]"#
                    : #""updateTransforms":[]"#
                let fields = stamp == "server" ? "{}" : #"{"at":{"timestampValue":"\#(stamp)"}}"#
                return #"{"writes":[{"update":{"name":"\#(FS.name("stamped/\(id)"))","fields":\#(fields)},\#(time)},"#
                    + #"{"update":{"name":"\#(FS.name("index/\(id)"))","fields":{"by":{"stringValue":"\#(by)"}}}}]}"#
            }
            // A client clock is never the commit time; the server's timestamp always is.
            Self.denied(
                try await client.request(
                    "POST", "\(FS.root()):commit", json: commit("s1", stamp: "2024-01-01T00:00:00Z", by: a.uid),
                    headers: a.headers))
            Self.denied(
                try await client.request(
                    "POST", "\(FS.root()):commit", json: commit("s1", stamp: "server", by: "someone-else"),
                    headers: a.headers))
            try expectOK(
                try await client.request(
                    "POST", "\(FS.root()):commit", json: commit("s1", stamp: "server", by: a.uid), headers: a.headers))
            try expectOK(try await client.request("GET", FS.path("stamped/s1"), headers: a.headers))
        }
    }

    @Test("rules replaced through the emulator endpoint; a file with errors is rejected with line:column")
    func emulatorReplace() async throws {
        try await Self.withRulesServer { server, a, _ in
            let client = server.client
            let bad = try await client.request(
                "PUT", "/emulator/v1/projects/demo:securityRules",
                json:
                    #"{"rules":{"files":[{"name":"firestore.rules","content":"service cloud.firestore {\n  match /x {\n    allow read: if ;\n  }\n}"}]}}"#
            )
            expectError(bad, 400, "INVALID_ARGUMENT", messageContains: ["3:20"])
            // The previous rules stay in force.
            Self.denied(try await client.request("GET", FS.path("open/x"), headers: a.headers))
            let open =
                "rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /open/{x} { allow read, write: if request.auth != null; } } }"
            let body = JSONValue.object(["rules": .object(["files": .array([.object(["content": .string(open)])])])])
            try expectOK(
                try await client.request("PUT", "/emulator/v1/projects/demo:securityRules", json: body.jsonString))
            try expectOK(
                try await client.request(
                    "POST", FS.path("open"), query: [("documentId", "x")], json: "{}", headers: a.headers))
            try expectOK(try await client.request("GET", FS.path("open/x"), headers: a.headers))
            Self.denied(try await client.request("GET", FS.path("open/x")))
        }
    }

    @Test("a rules file with an error stops the server with file:line:column")
    func badRulesFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.appendingPathComponent("bad.rules").path
        try "service cloud.firestore {\n  match /a {\n    allow raed;\n  }\n}\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        var options = HearthProcess.Options()
        options.extraArguments = ["--rules", path]
        do {
            _ = try await withHearth(options) { _ in Issue.record("the server should not start") }
        } catch {
            #expect("\(error)".contains("bad.rules:3:11"), "\(error)")
        }
    }
}
