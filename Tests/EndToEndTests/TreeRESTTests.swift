import Foundation
import HearthCore
import HearthTesting
import Testing

/// `/{path}.json`: GET, PUT, POST, PATCH, DELETE and their options, over HTTP against a real server.
@Suite("Tree REST", .sharedHearth, .timeLimit(.minutes(2)))
struct TreeRESTTests {
    let server: HearthProcess
    let client: HTTPClient
    init() throws {
        server = try SharedHearth.server
        client = server.client
    }

    @Test("PUT replaces and echoes; GET reads any level; missing is null")
    func putAndGet() async throws {
        let root = Tree.unique("put")
        let echoed = try await client.treePut("\(root)/users/ada", #"{"name":"Ada","age":36,"admin":true,"pi":3.14}"#)
        #expect(echoed == Tree.json(#"{"name":"Ada","age":36,"admin":true,"pi":3.14}"#))
        #expect(
            try await client.treeValue("\(root)/users")
                == Tree.json(#"{"ada":{"name":"Ada","age":36,"admin":true,"pi":3.14}}"#))
        #expect(try await client.treeValue("\(root)/users/ada/name") == "Ada")
        #expect(try await client.treeValue("\(root)/users/nobody") == .null)
        try await client.treePut("\(root)/users/ada", #"{"name":"Ada L."}"#)
        #expect(
            try await client.treeValue("\(root)/users/ada") == Tree.json(#"{"name":"Ada L."}"#),
            "PUT replaces, it does not merge")
        let get = try await client.tree("GET", "\(root)/users")
        #expect(get.headers["content-type"]?.hasPrefix("application/json") == true)
        // CORS is the responder's, for every API alike (CORSTests): no Origin, no Allow-Origin.
        #expect(get.headers["access-control-allow-origin"] == nil)
    }

    @Test("POST creates a push-ID child and answers its name; IDs are 20 characters and sort by creation")
    func post() async throws {
        let root = Tree.unique("post")
        var names: [String] = []
        for index in 0..<30 {
            let body = try expectOK(await client.tree("POST", "\(root)/messages", #"{"n":\#(index)}"#))
            names.append(try #require(body["name"]?.stringValue))
        }
        let alphabet = Set("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")
        for name in names { #expect(name.count == 20 && name.allSatisfy(alphabet.contains), "\(name)") }
        #expect(names == names.sorted(), "push IDs strictly increase")
        #expect(Set(names).count == names.count)
        let stored = try await client.treeValue("\(root)/messages")
        #expect(stored.objectValue?.count == 30)
        #expect(stored[names[7]] == Tree.json(#"{"n":7}"#))
    }

    @Test("concurrent POSTs get distinct, increasing IDs")
    func concurrentPosts() async throws {
        let root = Tree.unique("burst")
        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<40 {
                group.addTask { [client] in
                    try #require(
                        try expectOK(await client.tree("POST", "\(root)/list", "\(index)"))["name"]?.stringValue)
                }
            }
            var all: [String] = []
            for try await name in group { all.append(name) }
            return all
        }
        #expect(Set(names).count == 40)
        let keys = try await client.treeValue("\(root)/list").objectValue?.keys.sorted() ?? []
        #expect(keys == names.sorted())
    }

    @Test("PATCH merges named children and takes multi-path keys atomically; it echoes the update")
    func patch() async throws {
        let root = Tree.unique("patch")
        try await client.treePut(root, #"{"a":{"b":1,"keep":true},"c":{"d":1},"e":"x"}"#)
        let echoed = try expectOK(await client.tree("PATCH", root, #"{"a/b":2,"c":null,"f/g":{"h":1}}"#))
        #expect(echoed == Tree.json(#"{"a/b":2,"c":null,"f/g":{"h":1}}"#))
        #expect(try await client.treeValue(root) == Tree.json(#"{"a":{"b":2,"keep":true},"e":"x","f":{"g":{"h":1}}}"#))
        // Overlapping paths are refused and nothing is written.
        expectTreeError(try await client.tree("PATCH", root, #"{"a":1,"a/b":2}"#), 400, "overlap")
        expectTreeError(try await client.tree("PATCH", root, #"[1,2]"#), 400, "object")
        #expect(try await client.treeValue("\(root)/a/b") == 2)
        #expect(try expectOK(await client.tree("PATCH", root, "{}")) == .object([:]))
    }

    @Test("DELETE and writing null remove; emptied parents vanish")
    func delete() async throws {
        let root = Tree.unique("delete")
        try await client.treePut(root, #"{"a":{"b":{"c":1}},"z":1}"#)
        let deleted = try await client.tree("DELETE", "\(root)/a/b/c")
        #expect(deleted.status == 200 && deleted.text == "null")
        #expect(try await client.treeValue(root) == Tree.json(#"{"z":1}"#), "a and a/b had no other children")
        try await client.treePut("\(root)/z", "null")
        #expect(try await client.treeValue(root) == .null)
        #expect(try await client.treeValue(root, query: [("shallow", "true")]) == .null)
    }

    @Test(
        "print=pretty indents; print=silent answers 204 with no body; X-HTTP-Method-Override turns a POST into another method"
    )
    func printAndOverride() async throws {
        let root = Tree.unique("print")
        let pretty = try await client.tree("PUT", root, #"{"a":{"b":1}}"#, query: [("print", "pretty")])
        #expect(pretty.status == 200 && pretty.text.contains("\n  \"a\": {"))
        let silent = try await client.tree("PUT", "\(root)/s", "1", query: [("print", "silent")])
        #expect(silent.status == 204 && silent.body.isEmpty)
        let viaOverride = try await client.tree(
            "POST", "\(root)/o", #""put""#, headers: ["X-HTTP-Method-Override": "PUT"])
        #expect(viaOverride.status == 200 && viaOverride.text == #""put""#)
        _ = try await client.tree("POST", "\(root)/o", nil, headers: ["X-HTTP-Method-Override": "DELETE"])
        #expect(try await client.treeValue("\(root)/o") == .null)
        expectTreeError(try await client.tree("GET", root, query: [("print", "loud")]), 400, "print")
    }

    @Test("shallow=true keeps only the keys of children; a leaf is returned as is")
    func shallow() async throws {
        let root = Tree.unique("shallow")
        try await client.treePut(root, #"{"a":{"deep":{"x":1}},"b":2,"c":"text"}"#)
        #expect(
            try await client.treeValue(root, query: [("shallow", "true")])
                == Tree.json(#"{"a":true,"b":true,"c":true}"#))
        #expect(try await client.treeValue("\(root)/c", query: [("shallow", "true")]) == "text")
        expectTreeError(
            try await client.tree("GET", root, query: [("shallow", "true"), ("orderBy", #""$key""#)]), 400, "shallow")
    }

    @Test("a shallow read pages with pageSize and pageToken: every key once, in order, the last page unmarked")
    func shallowPages() async throws {
        let root = Tree.unique("shallow-pages")
        let keys = (0..<25).map { String(format: "k%02d", $0) }
        try await client.treePut(root, "{" + keys.map { #""\#($0)":{"v":1}"# }.joined(separator: ",") + "}")
        var seen: [String] = []
        var token: String?
        var pages = 0
        repeat {
            var query = [("shallow", "true"), ("pageSize", "10")]
            if let token { query.append(("pageToken", token)) }
            let page = try await client.tree("GET", root, query: query)
            #expect(page.status == 200)
            let object = try #require(try page.json().objectValue)
            #expect(object.values.allSatisfy { $0 == true })
            seen += object.keys.sorted()
            token = page.headers["x-hearth-next-page-token"]?.removingPercentEncoding
            pages += 1
        } while token != nil && pages < 10
        #expect(pages == 3)
        #expect(seen == keys)
        expectTreeError(try await client.tree("GET", root, query: [("pageSize", "10")]), 400, "shallow")
        expectTreeError(
            try await client.tree("GET", root, query: [("shallow", "true"), ("pageSize", "0")]), 400, "pageSize")
        expectTreeError(
            try await client.tree("GET", root, query: [("shallow", "true"), ("pageToken", "k05")]), 400, "pageSize")
    }

    @Test("priorities: .value/.priority writes, format=export, /.priority.json reads and writes")
    func priorities() async throws {
        let root = Tree.unique("priority")
        try await client.treePut(root, #"{"a":{".value":1,".priority":10},"b":{".priority":"x","c":true}}"#)
        #expect(try await client.treeValue(root) == Tree.json(#"{"a":1,"b":{"c":true}}"#))
        #expect(
            try await client.treeValue(root, query: [("format", "export")])
                == Tree.json(#"{"a":{".value":1,".priority":10},"b":{".priority":"x","c":true}}"#))
        #expect(try await client.treeValue("\(root)/a/.priority") == 10)
        try await client.treePut("\(root)/b/.priority", "2.5")
        #expect(try await client.treeValue("\(root)/b/.priority") == 2.5)
        #expect(
            try await client.treeValue("\(root)/b") == Tree.json(#"{"c":true}"#), "setting a priority keeps the data")
        expectTreeError(try await client.tree("PUT", "\(root)/b/.priority", "true"), 400, "priority")
        // A priority on a missing node does nothing.
        try await client.treePut("\(root)/none/.priority", "1")
        #expect(try await client.treeValue("\(root)/none") == .null)
    }

    @Test("arrays are stored as objects with index keys and read back as arrays")
    func arrays() async throws {
        let root = Tree.unique("array")
        try await client.treePut(root, #"["a","b",null,"d"]"#)
        #expect(try await client.treeValue(root) == Tree.json(#"["a","b",null,"d"]"#))
        #expect(try await client.treeValue("\(root)/1") == "b")
        #expect(
            try await client.treeValue(root, query: [("format", "export")]) == Tree.json(#"{"0":"a","1":"b","3":"d"}"#))
    }

    @Test("server values: timestamp and increment, anywhere in a written value")
    func serverValues() async throws {
        let root = Tree.unique("sv")
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        let echoed = try await client.treePut(
            root, #"{"at":{".sv":"timestamp"},"n":{"count":{".sv":{"increment":5}}}}"#)
        let after = Int64(Date().timeIntervalSince1970 * 1000)
        let stamp = try #require(echoed["at"]?.int64Value)
        #expect(stamp >= before - 1000 && stamp <= after + 1000)
        #expect(echoed["n"]?["count"] == 5, "PUT echoes the value with server values filled in")
        try await client.treePut("\(root)/n/count", #"{".sv":{"increment":-2}}"#)
        _ = try expectOK(
            await client.tree(
                "PATCH", "\(root)/n", #"{"count":{".sv":{"increment":0.5}},"other":{".sv":{"increment":1}}}"#))
        #expect(try await client.treeValue("\(root)/n") == Tree.json(#"{"count":3.5,"other":1}"#))
        expectTreeError(try await client.tree("PUT", root, #"{".sv":"now"}"#), 400, "server value")
    }

    @Test("concurrent increments are never lost")
    func concurrentIncrements() async throws {
        let root = Tree.unique("counter")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask { [client] in
                    _ = try expectOK(await client.tree("PUT", "\(root)/n", #"{".sv":{"increment":1}}"#))
                }
            }
            try await group.waitForAll()
        }
        #expect(try await client.treeValue("\(root)/n") == 50)
    }

    @Test("limits: invalid keys, depth over 32, bad JSON, unknown methods — each a clear {\"error\"} with its status")
    func limits() async throws {
        let root = Tree.unique("limits")
        expectTreeError(try await client.tree("PUT", root, #"{"a.b":1}"#), 400, "contains one of")
        expectTreeError(try await client.tree("PUT", root, #"{"a":{"$x":1}}"#), 400, "contains one of")
        expectTreeError(try await client.tree("PUT", root, #"{"t\u0001":1}"#), 400, "control character")
        expectTreeError(try await client.tree("PUT", root, "{\"\(String(repeating: "k", count: 769))\":1}"), 400, "768")
        try await client.treePut(root, "{\"\(String(repeating: "k", count: 768))\":1}")
        expectTreeError(try await client.tree("GET", "\(root)/a[0]"), 400, "Invalid path")
        let deep = String(repeating: #"{"k":"#, count: 32) + "1" + String(repeating: "}", count: 32)
        expectTreeError(try await client.tree("PUT", root, deep), 400, "deeper than 32")
        let fits = String(repeating: #"{"k":"#, count: 31) + "1" + String(repeating: "}", count: 31)
        try await client.treePut(root, fits)
        expectTreeError(try await client.tree("PUT", root, "{nope"), 400, "Invalid data")
        expectTreeError(try await client.tree("PUT", root, nil), 400, "Invalid data")
        let unknown = try await client.tree("COPY", root)
        #expect(unknown.status == 405, "\(unknown)")
        #expect(try await client.tree("OPTIONS", root).headers["allow"]?.contains("PATCH") == true)
    }

    @Test("a write larger than the body limit (10 MiB) is refused with 413 and writes nothing")
    func writeTooLarge() async throws {
        let key = Tree.unique("big")
        let big = "\"" + String(repeating: "x", count: 10 * 1024 * 1024 + 10) + "\""
        expectTreeError(try await client.tree("PUT", key, big), 413, "exceeds the maximum size")
        #expect(try await client.treeValue(key) == .null)
    }

    @Test("namespaces: no ns, ns={project} and ns={project}-default-rtdb are one database; other ns are separate")
    func namespaces() async throws {
        let key = Tree.unique("ns")
        try await client.treePut(key, "1")
        #expect(try await client.treeValue(key, ns: "demo") == 1)
        #expect(try await client.treeValue(key, ns: "demo-default-rtdb") == 1)
        let other = Tree.unique("other")
        #expect(try await client.treeValue(key, ns: other) == .null)
        try await client.treePut(key, "2", ns: other)
        #expect(try await client.treeValue(key) == 1)
        #expect(try await client.treeValue(key, ns: other) == 2)
        expectTreeError(try await client.tree("GET", key, ns: "bad ns!"), 400, "namespace")
    }

    @Test("emulator-style wipe: DELETE of the root clears a namespace and only that one")
    func wipe() async throws {
        let ns = Tree.unique("wipe")
        let kept = Tree.unique("kept")
        try await client.treePut("a/b", "1", ns: ns)
        try await client.treePut("c", #"{"d":{".priority":1,"e":2}}"#, ns: ns)
        try await client.treePut("x", "1", ns: kept)
        let wiped = try await client.tree("DELETE", "", ns: ns, headers: ["Authorization": "Bearer owner"])
        #expect(wiped.status == 200)
        #expect(try await client.treeValue("", ns: ns) == .null)
        #expect(try await client.treeValue("", ns: ns, query: [("format", "export")]) == .null)
        #expect(try await client.treeValue("x", ns: kept) == 1)
    }

    @Test("credentials: a valid ID token or the admin credential is accepted; a bad one is 401")
    func credentials() async throws {
        let root = Tree.unique("auth")
        let user = try await client.signUp(Accounts.uniqueEmail("tree"))
        let token = try #require(user["idToken"]?.stringValue)
        #expect(try await client.tree("PUT", root, "1", query: [("auth", token)]).status == 200)
        #expect(try await client.tree("GET", root, query: [("access_token", token)]).status == 200)
        #expect(try await client.tree("GET", root, headers: ["Authorization": "Bearer owner"]).status == 200)
        expectTreeError(try await client.tree("GET", root, query: [("auth", "not-a-token")]), 401, "auth token")
    }

    @Test("data survives a restart")
    func restart() async throws {
        let server = try await HearthProcess.start()
        try await server.client.treePut("kept", #"{"a":{".priority":1,"b":[1,2]}}"#)
        _ = try expectOK(await server.client.tree("PATCH", "kept", #"{"c":"x"}"#))
        try await server.kill9()
        let again = try await server.restart()
        #expect(
            try await again.client.treeValue("kept", query: [("format", "export")])
                == Tree.json(#"{"a":{".priority":1,"b":{"0":1,"1":2}},"c":"x"}"#))
        try await again.stop()
    }
}
