import Foundation
import HearthCore
import HearthTesting
import Testing

/// `hearth export` and `hearth import` (issue 20): everything a data directory holds — every project, every
/// database, documents with every value type and their times, the tree with priorities, accounts with their
/// passwords, deployed rules, learned indexes — goes out as JSON lines and comes back identical, and an import
/// that cannot finish leaves its target as it was.
@Suite(
    "Export and import", .sqliteOnly("hearth export and import read and write SQLite data directories"),
    .timeLimit(.minutes(4)))
struct ExportImportTests {
    /// One document holding every Firestore value type, a whole double, and a timestamp to the microsecond.
    static let everyType = #"""
        {"fields":{
          "null":{"nullValue":null},"yes":{"booleanValue":true},"int":{"integerValue":"-9223372036854775808"},
          "whole":{"doubleValue":2.0},"half":{"doubleValue":0.5},"nan":{"doubleValue":"NaN"},
          "inf":{"doubleValue":"-Infinity"},"when":{"timestampValue":"2026-01-02T03:04:05.123456Z"},
          "text":{"stringValue":"<script>ünïcode ✓</script>"},"bytes":{"bytesValue":"AAEC/w=="},
          "ref":{"referenceValue":"projects/demo/databases/(default)/documents/todos/b"},
          "geo":{"geoPointValue":{"latitude":-33.5,"longitude":151.25}},
          "list":{"arrayValue":{"values":[{"integerValue":"1"},{"mapValue":{"fields":{"deep":{"booleanValue":false}}}}]}},
          "map":{"mapValue":{"fields":{"a.b":{"stringValue":"dotted name"},"empty":{"mapValue":{}}}}}
        }}
        """#

    @Test("export → import into a fresh directory → every document, leaf, account, rule and index identical")
    func roundTrip() async throws {
        let server = try await HearthProcess.start()
        let client = server.client
        try expectOK(await client.request("PATCH", FS.path("todos/a"), json: Self.everyType))
        try expectOK(
            await client.request(
                "PATCH", FS.path("todos/a/notes/n1"), json: FS.document(#"{"n":{"integerValue":"1"}}"#)))
        try expectOK(
            await client.request(
                "PATCH", "\(FS.root(database: "shop-db"))/orders/o1",
                json: FS.document(#"{"total":{"doubleValue":9.5}}"#)))
        try expectOK(
            await client.request(
                "PATCH", "\(FS.root("other"))/things/t1", json: FS.document(#"{"x":{"stringValue":"other's"}}"#)))
        try expectOK(
            await client.request(
                "PUT", "/chat.json",
                json: #"{"a":{".value":2.0,".priority":1},"b":{"c":"x","d":true,".priority":"p"},"n":-3.25}"#))
        _ = try await client.signUp("export@example.com")
        let rules = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /{path=**} { allow read: if true; }
                match /todos/{id} { allow write: if true; }
              }
            }
            """
        let body = JSONValue.object(["rules": .object(["files": .array([.object(["content": .string(rules)])])])])
        try expectOK(await client.request("PUT", "/emulator/v1/projects/demo:securityRules", json: body.jsonString))
        // A query development mode answers without an index, and learns one.
        let query = #"""
            {"structuredQuery":{"from":[{"collectionId":"todos"}],
             "where":{"fieldFilter":{"field":{"fieldPath":"yes"},"op":"EQUAL","value":{"booleanValue":true}}},
             "orderBy":[{"field":{"fieldPath":"when"},"direction":"DESCENDING"}]}}
            """#
        try expectOK(await client.request("POST", FS.root() + ":runQuery", json: query))
        let original = try expectOK(await client.get(FS.path("todos/a")))
        let originalTree = try await client.get("/chat.json", query: [("format", "export")]).text

        // While the server serves.
        let files = try TemporaryDirectory("hearth-export")
        defer { files.remove() }
        let first = files.url.appendingPathComponent("first").path
        let exported = try await runHearth(["export", "--data", server.dataDirectory.path, first])
        #expect(exported.termination == .exit(0), "\(exported.stderr)")
        #expect(
            exported.stdout.contains("2 projects, 3 databases, 4 documents, 1 account, 6 tree rows, 1 rules file"),
            "\(exported.stdout)")
        let lines = try String(contentsOfFile: first + "/documents.jsonl", encoding: .utf8)
        #expect(lines.split(separator: "\n").count == 2, "one line per document")
        #expect(lines.contains(#""when":{"timestampValue":"2026-01-02T03:04:05.123456Z"}"#), "\(lines)")
        // An existing directory is not overwritten.
        let twice = try await runHearth(["export", "--data", server.dataDirectory.path, first])
        #expect(twice.termination == .exit(1) && twice.stderr.contains("exists"), "\(twice.stderr)")
        // Nor is a running server's directory imported into.
        let busy = try await runHearth(["import", "--data", server.dataDirectory.path, first])
        #expect(busy.termination == .exit(1), "\(busy.stderr)")
        _ = try await server.stop()

        let target = try TemporaryDirectory()
        let imported = try await runHearth(["import", "--data", target.path, first])
        #expect(imported.termination == .exit(0), "\(imported.stderr)")
        let indexes = try await runHearth(["indexes", "--data", target.path])
        #expect(indexes.stdout.contains(#""fieldPath":"when","order":"DESCENDING""#), "\(indexes.stdout)")

        // The imported directory exports to the same bytes.
        let second = files.url.appendingPathComponent("second").path
        let again = try await runHearth(["export", "--data", target.path, second])
        #expect(again.termination == .exit(0), "\(again.stderr)")
        for file in try Self.files(under: first) {
            let before = FileManager.default.contents(atPath: first + "/" + file)
            let after = FileManager.default.contents(atPath: second + "/" + file)
            #expect(before == after, "\(file) differs after the round trip")
        }
        #expect(try Self.files(under: first) == Self.files(under: second))

        // And serves the same data: times, values, tree, password, rules, the other project and database.
        let restored = try await HearthProcess.start(HearthProcess.Options(), dataDirectory: target)
        let served = try expectOK(await restored.client.get(FS.path("todos/a")))
        #expect(served == original)
        #expect(try await restored.client.get("/chat.json", query: [("format", "export")]).text == originalTree)
        try expectOK(
            await restored.client.accounts(
                "signInWithPassword",
                ["email": "export@example.com", "password": "secret-password", "returnSecureToken": true]))
        expectError(
            try await restored.client.request("PATCH", FS.path("locked/x"), json: FS.document("{}")), 403,
            "PERMISSION_DENIED")
        #expect(try await restored.client.get("\(FS.root("other"))/things/t1").status == 200)
        #expect(try await restored.client.get("\(FS.root(database: "shop-db"))/orders/o1").status == 200)
        expectError(try await restored.client.get(FS.path("things/t1")), 404, "NOT_FOUND")
        _ = try await restored.stop()

        // Not into a directory that holds data.
        let full = try await runHearth(["import", "--data", target.path, first])
        #expect(full.termination == .exit(1) && full.stderr.contains("not empty"), "\(full.stderr)")
    }

    @Test("an import with a bad line fails naming it, and leaves the target as it was")
    func badLineLeavesTargetAlone() async throws {
        let server = try await HearthProcess.start()
        // More documents than one import batch, so the failure comes after a batch was already stored.
        for chunk in 0..<3 {
            let writes = (0..<500).map { index in
                #"{"update":{"name":"\#(FS.name("many/d\(chunk * 500 + index)"))","fields":{"i":{"integerValue":"\#(index)"}}}}"#
            }
            try expectOK(
                await server.client.request(
                    "POST", FS.root() + ":commit", json: #"{"writes":[\#(writes.joined(separator: ","))]}"#))
        }
        let files = try TemporaryDirectory("hearth-export")
        defer { files.remove() }
        let export = files.url.appendingPathComponent("x").path
        #expect(try await runHearth(["export", "--data", server.dataDirectory.path, export]).termination == .exit(0))
        _ = try await server.stop()
        let documents = export + "/documents.jsonl"
        var text = try String(contentsOfFile: documents, encoding: .utf8)
        text +=
            #"{"name":"many/bad","createTime":"2026-01-01T00:00:00Z","updateTime":"2026-01-01T00:00:00Z","fields":{"x":{"integerValue":"ten"}}}"#
            + "\n"
        try text.write(toFile: documents, atomically: true, encoding: .utf8)

        let target = files.url.appendingPathComponent("target").path
        let failed = try await runHearth(["import", "--data", target, export])
        #expect(failed.termination == .exit(1))
        #expect(failed.stderr.contains("documents.jsonl:1501"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target), "the target was made and must be gone again")
        let siblings = try FileManager.default.contentsOfDirectory(atPath: files.path)
        #expect(siblings.sorted() == ["x"], "no staging directory left: \(siblings)")

        // An empty target that existed stays, empty.
        let existing = try TemporaryDirectory()
        let again = try await runHearth(["import", "--data", existing.path, export])
        #expect(again.termination == .exit(1))
        let left = try FileManager.default.contentsOfDirectory(atPath: existing.path).filter { $0 != "hearth.lock" }
        #expect(left.isEmpty, "\(left)")
        // A wrong format version is refused before anything is written.
        try #"{"format":"hearth-export","version":99}"#.write(
            toFile: export + "/hearth-export.json", atomically: true, encoding: .utf8)
        let version = try await runHearth(["import", "--data", target, export])
        #expect(version.termination == .exit(1) && version.stderr.contains("version 99"), "\(version.stderr)")
    }

    @Test("serve --import DIR --export-on-exit DIR: starts from the export and writes it back at stop")
    func serveImportAndExportOnExit() async throws {
        let files = try TemporaryDirectory("hearth-seed")
        defer { files.remove() }
        let seed = files.url.appendingPathComponent("seed").path
        var options = HearthProcess.Options()
        options.extraArguments = ["--import", seed, "--export-on-exit", seed]
        // The first run: the seed does not exist yet, so the server starts empty and writes it at exit.
        let first = try await HearthProcess.start(options)
        try expectOK(await first.client.request("PATCH", FS.path("seeded/one"), json: FS.document("{}")))
        #expect(try await first.stop() == .exit(0))
        #expect(FileManager.default.fileExists(atPath: seed + "/hearth-export.json"))

        let second = try await HearthProcess.start(options)
        let one = try expectOK(await second.client.get(FS.path("seeded/one")))
        try expectOK(await second.client.request("PATCH", FS.path("seeded/two"), json: FS.document("{}")))
        #expect(try await second.stop() == .exit(0))
        let lines = try String(contentsOfFile: seed + "/documents.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains(#""name":"seeded/one""#), "\(lines)")

        // A third run serves both, the first unchanged (same update time).
        let third = try await HearthProcess.start(options)
        #expect(try expectOK(await third.client.get(FS.path("seeded/one"))) == one)
        #expect(try await third.client.get(FS.path("seeded/two")).status == 200)
        _ = try await third.stop()

        // A mistyped import directory is an error, not an empty data set.
        var typo = HearthProcess.Options()
        typo.extraArguments = ["--import", files.url.appendingPathComponent("sed").path]
        await #expect(throws: (any Error).self) { _ = try await HearthProcess.start(typo) }
    }

    /// Every file under `root`, relative, sorted.
    static func files(under root: String) throws -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let next = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + next, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append(next)
            }
        }
        return files.sorted()
    }
}
