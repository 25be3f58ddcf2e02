import Foundation
import HearthCore
import HearthTesting
import Testing

/// Bad input: each gets the right google.rpc.Status, and nothing is half-written.
@Suite("Errors", .sharedHearth, .timeLimit(.minutes(2)))
struct ErrorTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    /// A field value nested in `levels` maps.
    static func nestedMaps(_ levels: Int) -> String {
        var value = #"{"integerValue":"1"}"#
        for _ in 0..<levels { value = #"{"mapValue":{"fields":{"m":\#(value)}}}"# }
        return value
    }

    @Test("malformed JSON bodies are 400 INVALID_ARGUMENT")
    func malformedJSON() async throws {
        let c = FS.unique("malformed")
        let bodies: [[UInt8]] = [
            Array(#"{"fields":"#.utf8), Array("not json".utf8), Array(#"{"fields":{}} trailing"#.utf8),
            Array(#"{"fields":{"a":{"stringValue":"x"}},}"#.utf8), Array("[]".utf8), Array(#""text""#.utf8),
            [0x7B, 0x22, 0x66, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D],  // invalid UTF-8
        ]
        for body in bodies {
            let result = try await client.request("POST", FS.path(c), query: [("documentId", "d")], body: body)
            expectError(result, 400, "INVALID_ARGUMENT")
        }
        let commit = try await client.request("POST", "\(FS.root()):commit", body: Array(#"{"writes":[{"#.utf8))
        expectError(commit, 400, "INVALID_ARGUMENT")
        expectError(try await client.document("\(c)/d"), 404, "NOT_FOUND")
    }

    @Test(
        "wrong Value shapes are 400 INVALID_ARGUMENT naming the field",
        arguments: [
            #"{"integerValue":"abc"}"#, #"{"integerValue":"9223372036854775808"}"#,
            #"{"integerValue":"1","stringValue":"x"}"#,
            #"{"fooValue":"1"}"#, #"{}"#, #""bare string""#, #"{"stringValue":5}"#, #"{"booleanValue":"true"}"#,
            #"{"doubleValue":"many"}"#, #"{"timestampValue":"yesterday"}"#,
            #"{"timestampValue":"2024-13-01T00:00:00Z"}"#,
            #"{"bytesValue":"!!not base64!!"}"#, #"{"referenceValue":"users/alice"}"#,
            #"{"geoPointValue":{"latitude":91,"longitude":0}}"#,
            #"{"geoPointValue":{"latitude":0,"longitude":-180.5}}"#,
            #"{"geoPointValue":{"latitude":0,"altitude":3}}"#,
            #"{"arrayValue":{"values":[{"arrayValue":{}}]}}"#, #"{"arrayValue":{"values":{"integerValue":"1"}}}"#,
            #"{"mapValue":{"fields":[]}}"#, #"{"mapValue":{"fields":{"x":{"integerValue":"zz"}}}}"#,
            #"{"nullValue":"something"}"#,
        ])
    func wrongValueShapes(value: String) async throws {
        let c = FS.unique("shape")
        let result = try await client.request(
            "POST", FS.path(c), query: [("documentId", "d")],
            json: FS.document(#"{"ok":{"integerValue":"1"},"badField":\#(value)}"#))
        expectError(result, 400, "INVALID_ARGUMENT", messageContains: ["badField"])
        expectError(try await client.document("\(c)/d"), 404, "NOT_FOUND")
    }

    @Test(
        "a geoPointValue with a non-numeric latitude or longitude is 400 INVALID_ARGUMENT",
        arguments: [
            #"{"latitude":"x","longitude":1}"#, #"{"latitude":1,"longitude":true}"#, #"{"latitude":{},"longitude":1}"#,
        ])
    func geoPointWithNonNumbers(point: String) async throws {
        let c = FS.unique("geo")
        let result = try await client.request(
            "POST", FS.path(c), query: [("documentId", "d")],
            json: FS.document(#"{"badField":{"geoPointValue":\#(point)}}"#))
        expectError(result, 400, "INVALID_ARGUMENT", messageContains: ["badField"])
        expectError(try await client.document("\(c)/d"), 404, "NOT_FOUND")
    }

    @Test("invalid field names in a document body are 400", arguments: [#""""#, #""__reserved__""#])
    func invalidFieldNames(name: String) async throws {
        let c = FS.unique("fieldname")
        let result = try await client.request(
            "POST", FS.path(c), json: FS.document(#"{\#(name):{"integerValue":"1"}}"#))
        expectError(result, 400, "INVALID_ARGUMENT")
    }

    @Test("unknown body fields and unknown query parameters are 400 naming them")
    func unknownNames() async throws {
        let c = FS.unique("unknown")
        try await client.create(c, id: "d")
        let body = try await client.request("POST", FS.path(c), json: #"{"fields":{},"bogusMember":1}"#)
        expectError(body, 400, "INVALID_ARGUMENT", messageContains: ["bogusMember"])
        let patch = try await client.request("PATCH", FS.path("\(c)/d"), json: #"{"fieldz":{}}"#)
        expectError(patch, 400, "INVALID_ARGUMENT", messageContains: ["fieldz"])
        let commit = try await client.request("POST", "\(FS.root()):commit", json: #"{"writes":[],"wrytes":[]}"#)
        expectError(commit, 400, "INVALID_ARGUMENT", messageContains: ["wrytes"])
        let write = try await client.commit(
            #"[{"update":{"name":"\#(FS.name("\(c)/d"))","fields":{}},"precondition":{}}]"#)
        expectError(write, 400, "INVALID_ARGUMENT", messageContains: ["precondition"])

        for (method, path) in [
            ("GET", FS.path("\(c)/d")), ("GET", FS.path(c)), ("DELETE", FS.path("\(c)/d")),
            ("PATCH", FS.path("\(c)/d")),
        ] {
            let result = try await client.request(method, path, query: [("bogusParam", "1")], json: "{}")
            expectError(result, 400, "INVALID_ARGUMENT", messageContains: ["bogusParam"])
        }
        try expectOK(try await client.document("\(c)/d"))  // the DELETE above did nothing
    }

    @Test("document vs collection paths: GET on a collection lists, POST on a document is an error")
    func collectionAndDocumentPaths() async throws {
        let c = FS.unique("paths")
        try await client.create(c, id: "d")
        let list = try expectOK(try await client.get(FS.path(c)))
        #expect(list["documents"]?.arrayValue?.count == 1)
        let nested = try expectOK(try await client.get(FS.path("\(c)/d/sub")))
        #expect(nested["documents"] == nil || nested["documents"] == .array([]))

        let post = try await client.request("POST", FS.path("\(c)/d"), json: "{}")
        expectErrorBody(post, statuses: [400, 404, 405])
        let patchCollection = try await client.request("PATCH", FS.path(c), json: "{}")
        expectErrorBody(patchCollection, statuses: [400, 404, 405])
    }

    @Test("invalid resource paths are 400 INVALID_ARGUMENT")
    func invalidPaths() async throws {
        let c = FS.unique("badpath")
        expectError(try await client.get(FS.path("\(c)//d")), 400, "INVALID_ARGUMENT")
        expectError(try await client.get(FS.path("\(c)/d//sub/x")), 400, "INVALID_ARGUMENT")
        expectError(try await client.get(FS.path("\(c)/__x__")), 400, "INVALID_ARGUMENT", messageContains: ["__x__"])
        expectError(try await client.get(FS.path("__coll__/d")), 400, "INVALID_ARGUMENT")
        expectError(try await client.request("PATCH", FS.path("\(c)/__id__"), json: "{}"), 400, "INVALID_ARGUMENT")
        let reserved = try await client.request("POST", FS.path(c), query: [("documentId", "__x__")], json: "{}")
        expectError(reserved, 400, "INVALID_ARGUMENT")
        for dot in [".", ".."] {
            expectError(
                try await client.request("POST", FS.path(c), query: [("documentId", dot)], json: "{}"), 400,
                "INVALID_ARGUMENT")
        }

        let long = String(repeating: "x", count: 1501)
        expectError(try await client.get(FS.path("\(c)/\(long)")), 400, "INVALID_ARGUMENT", messageContains: ["1500"])
        expectError(
            try await client.request("POST", FS.path(c), query: [("documentId", long)], json: "{}"), 400,
            "INVALID_ARGUMENT")
        let longest = String(repeating: "y", count: 1500)
        try await client.create(c, id: longest)
        try expectOK(try await client.document("\(c)/\(longest)"))
        let multibyte = String(repeating: "é", count: 751)  // 1,502 bytes
        let encoded = HTTPClient.encodeQuery(multibyte)
        expectError(try await client.get(FS.path("\(c)/\(encoded)")), 400, "INVALID_ARGUMENT")
        #expect(
            try await client.listAll(c, pageSize: 10).names == [FS.name("\(c)/\(longest)")],
            "nothing invalid was written")
    }

    @Test(
        "a documentId containing '/' is rejected")
    func documentIDWithSlash() async throws {
        let c = FS.unique("slash")
        let result = try await client.request("POST", FS.path(c), query: [("documentId", "a/b")], json: "{}")
        expectError(result, 400, "INVALID_ARGUMENT")
        #expect(try await client.listAll(c, pageSize: 10).names.isEmpty)
    }

    @Test("document IDs with spaces, unicode and emoji work when percent-encoded")
    func unicodeIDs() async throws {
        let c = FS.unique("unicode")
        let id = "héllo wörld 🔥+&="
        let created = try await client.create(c, id: id)
        #expect(created["name"] == .string(FS.name("\(c)/\(id)")))
        let fetched = try expectOK(try await client.document("\(c)/\(HTTPClient.encodeQuery(id))"))
        #expect(fetched["name"] == .string(FS.name("\(c)/\(id)")))
    }

    @Test(
        "invalid field paths in updateMask or mask are 400",
        arguments: ["a..b", "`a", "a.`b", "", ".a", "a.", "a``b`", "x-y", "1abc", "a b"])
    func invalidFieldPaths(path: String) async throws {
        let c = FS.unique("fieldpath")
        try await client.create(c, id: "d", fields: #"{"a":{"integerValue":"1"}}"#)
        let patch = try await client.request(
            "PATCH", FS.path("\(c)/d"), query: [("updateMask.fieldPaths", path)],
            json: FS.document(#"{"a":{"integerValue":"2"}}"#))
        expectError(patch, 400, "INVALID_ARGUMENT")
        expectError(try await client.document("\(c)/d", query: [("mask.fieldPaths", path)]), 400, "INVALID_ARGUMENT")
        expectJSON(try await client.fields("\(c)/d"), FS.json(#"{"a":{"integerValue":"1"}}"#))
    }

    @Test("a document over 1 MiB is 400 INVALID_ARGUMENT; one just under is stored")
    func documentSizeLimit() async throws {
        let c = FS.unique("size")
        let big = String(repeating: "x", count: 1_048_576)
        let tooBig = try await client.request(
            "POST", FS.path(c), query: [("documentId", "big")], json: FS.document(#"{"s":{"stringValue":"\#(big)"}}"#))
        expectError(tooBig, 400, "INVALID_ARGUMENT")
        expectError(try await client.document("\(c)/big"), 404, "NOT_FOUND")

        let fits = String(repeating: "y", count: 1_000_000)
        try await client.create(c, id: "fits", fields: #"{"s":{"stringValue":"\#(fits)"}}"#)
        #expect(try await client.fields("\(c)/fits")["s"]?["stringValue"]?.stringValue?.utf8.count == 1_000_000)

        // Growing an existing document past the limit fails too, and leaves it as it was.
        let grow = try await client.request(
            "PATCH", FS.path("\(c)/fits"), query: [("updateMask.fieldPaths", "t")],
            json: FS.document(#"{"t":{"stringValue":"\#(String(repeating: "z", count: 60_000))"}}"#))
        expectError(grow, 400, "INVALID_ARGUMENT")
        #expect(try await client.fields("\(c)/fits")["t"] == nil)
    }

    @Test("maps nested 21 levels are 400 INVALID_ARGUMENT")
    func nestingTooDeep() async throws {
        let c = FS.unique("deep")
        let result = try await client.request(
            "POST", FS.path(c), query: [("documentId", "d21")], json: FS.document(#"{"f":\#(Self.nestedMaps(21))}"#))
        expectError(result, 400, "INVALID_ARGUMENT")
        expectError(try await client.document("\(c)/d21"), 404, "NOT_FOUND")
        let shallow = try await client.request(
            "POST", FS.path(c), query: [("documentId", "d19")], json: FS.document(#"{"f":\#(Self.nestedMaps(19))}"#))
        #expect(shallow.status == 200, "\(shallow)")
    }

    @Test(
        "maps nested 20 levels are accepted")
    func nestingAtLimit() async throws {
        let c = FS.unique("deep20")
        let result = try await client.request(
            "POST", FS.path(c), query: [("documentId", "d20")], json: FS.document(#"{"f":\#(Self.nestedMaps(20))}"#))
        let body = try expectOK(result)
        expectJSON(body["fields"]?["f"], FS.json(Self.nestedMaps(20)))
    }

    @Test("a request body over 10 MiB is 400 INVALID_ARGUMENT naming the limit, and the server stays healthy")
    func requestBodyLimit() async throws {
        let c = FS.unique("huge")
        var body = Array(#"{"fields":{"s":{"stringValue":""#.utf8)
        body += [UInt8](repeating: UInt8(ascii: "x"), count: 11 * 1024 * 1024)
        body += Array(#""}}}"#.utf8)
        let result = try await client.request("POST", FS.path(c), query: [("documentId", "huge")], body: body)
        expectError(result, 400, "INVALID_ARGUMENT", messageContains: ["limit"])
        #expect(result.text.contains("10485760") || result.text.contains("10 MiB"), "\(result)")

        let health = try await client.get("/healthz")
        #expect(health.status == 200)
        try await client.create(c, id: "after")
        expectError(try await client.document("\(c)/huge"), 404, "NOT_FOUND")
    }

    @Test("wrong methods get google.rpc.Status JSON errors")
    func wrongMethods() async throws {
        let c = FS.unique("methods")
        try await client.create(c, id: "d")
        let cases: [(String, String)] = [
            ("PUT", FS.path("\(c)/d")), ("GET", "\(FS.root()):commit"), ("GET", "\(FS.root()):batchGet"),
            ("DELETE", FS.path(c)), ("PUT", FS.path(c)), ("POST", "/healthz"),
        ]
        for (method, path) in cases {
            let result = try await client.request(method, path, json: "{}")
            expectErrorBody(result, statuses: [400, 404, 405], "\(method) \(path)")
        }
        try expectOK(try await client.document("\(c)/d"))
    }

    @Test("unknown URLs are 404 NOT_FOUND JSON")
    func unknownURLs() async throws {
        for path in [
            "/nope", "/v1/projects/demo/databases/(default)/nothing",
            "/v2/projects/demo/databases/(default)/documents/c/d", "/v1",
        ] {
            expectError(try await client.get(path), 404, "NOT_FOUND")
        }
    }

    /// Development mode opens any named database a client names (ProjectIsolationTests); one Firestore would refuse
    /// is a 400 without a trace on disk.
    @Test("a database ID Firestore refuses is 400 INVALID_ARGUMENT")
    func wrongDatabase() async throws {
        let result = try await client.get(FS.path("c/d").replacingOccurrences(of: "(default)", with: "Other_DB"))
        expectError(result, 400, "INVALID_ARGUMENT", messageContains: ["Other_DB"])
        let commit = try await client.request(
            "POST", FS.root("demo", database: "x") + ":commit", json: #"{"writes":[]}"#)
        expectError(commit, 400, "INVALID_ARGUMENT")
    }

    @Test("updateTime precondition with an invalid time, or both preconditions, is 400")
    func invalidPreconditions() async throws {
        let c = FS.unique("badpre")
        try await client.create(c, id: "d")
        for query in [
            [("currentDocument.updateTime", "notatime")], [("currentDocument.exists", "maybe")],
            [("currentDocument.exists", "true"), ("currentDocument.updateTime", "2020-01-01T00:00:00Z")],
        ] {
            expectError(
                try await client.request("PATCH", FS.path("\(c)/d"), query: query, json: "{}"), 400, "INVALID_ARGUMENT")
        }
    }
}

/// A server without `--dev`: one project, no emulator endpoints.
@Suite("Production mode", .timeLimit(.minutes(2)))
struct ProductionModeTests {
    @Test("another project is 404 NOT_FOUND and the emulator wipe is 403 PERMISSION_DENIED")
    func nonDevMode() async throws {
        var options = HearthProcess.Options()
        options.dev = false
        options.project = "prod-1"
        options.extraArguments = ["--rules", OpenRules.path]
        try await withHearth(options) { server in
            let client = server.client
            try await client.create("c", id: "d", project: "prod-1")
            let other = try await client.request(
                "POST", FS.path("c", project: "demo"), query: [("documentId", "d")], json: "{}")
            expectError(other, 404, "NOT_FOUND", messageContains: ["demo"])
            expectError(try await client.get(FS.path("c/d", project: "prod-2")), 404, "NOT_FOUND")
            let wipe = try await client.request("DELETE", "/emulator/v1/projects/prod-1/databases/(default)/documents")
            expectError(wipe, 403, "PERMISSION_DENIED")
            try expectOK(try await client.get(FS.path("c/d", project: "prod-1")))
        }
    }
}

/// Checks that a response is a google.rpc.Status error whose code matches the HTTP status.
func expectErrorBody(
    _ result: HTTPResult, statuses: Set<Int>, _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(statuses.contains(result.status), "\(comment): \(result)", sourceLocation: sourceLocation)
    guard let body = try? JSONParser.parse(result.body), let error = body["error"] else {
        Issue.record("\(comment): not a JSON error body: \(result)", sourceLocation: sourceLocation)
        return
    }
    #expect(error["code"] == .integer(Int64(result.status)), "\(comment): \(result)", sourceLocation: sourceLocation)
    #expect(error["status"]?.stringValue?.isEmpty == false, "\(comment): \(result)", sourceLocation: sourceLocation)
    #expect((error["message"]?.stringValue?.count ?? 0) >= 10, "\(comment): \(result)", sourceLocation: sourceLocation)
}
