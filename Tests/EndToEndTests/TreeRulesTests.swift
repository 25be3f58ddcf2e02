import Foundation
import HearthCore
import HearthTesting
import Testing

/// Users A and B, signed up through the accounts API, try every tree operation against each other's data under an
/// ownership rules file (`--database-rules`); each outcome must match the rules, and a refused request changes
/// nothing.
@Suite("Tree rules", .timeLimit(.minutes(3)))
struct TreeRulesTests {
    static let rules = """
        {
          // Each user owns /users/$uid; a room is readable by its members, who add and remove only themselves.
          "rules": {
            "users": {
              "$uid": {
                ".read": "auth != null && auth.uid === $uid",
                ".write": "auth != null && auth.uid === $uid",
                "name": { ".validate": "newData.isString() && newData.val().length <= 20" },
                "posts": {
                  "$post": {
                    ".validate": "newData.hasChildren(['text', 'at'])",
                    "text": { ".validate": "newData.isString() && newData.val().length <= 20" },
                    "at": { ".validate": "newData.isNumber() && newData.val() === now" },
                    "$other": { ".validate": false }
                  }
                }
              }
            },
            "inbox": {
              ".read": "auth != null && query.orderByChild === 'to' && query.equalTo === auth.uid",
              "$message": { ".write": "auth != null && newData.child('from').val() === auth.uid" }
            },
            "rooms": {
              "$room": {
                ".read": "auth != null && data.child('members').child(auth.uid).exists()",
                "members": { "$member": { ".write": "auth != null && auth.uid === $member" } },
                "topic": { ".write": "auth != null && data.parent().child('members').child(auth.uid).exists()" }
              }
            }
          }
        }
        """

    struct User {
        var uid: String
        var token: String
        var headers: [String: String] { ["Authorization": "Bearer \(token)"] }
    }

    static let admin = ["Authorization": "Bearer owner"]

    static func rulesFile(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tree-\(UUID().uuidString).rules.json")
        try Data(text.utf8).write(to: url)
        return url
    }

    static func withRulesServer(
        _ options: HearthProcess.Options = HearthProcess.Options(), rules: String = Self.rules,
        _ body: (HearthProcess, URL, User, User) async throws -> Void
    ) async throws {
        let file = try rulesFile(rules)
        defer { try? FileManager.default.removeItem(at: file) }
        var options = options
        options.extraArguments += ["--database-rules", file.path]
        options.environment["HEARTH_TREE_KEEPALIVE_SECONDS"] = "0.3"
        try await withHearth(options) { server in
            func user(_ name: String) async throws -> User {
                let account = try await server.client.signUp(Accounts.uniqueEmail(name))
                return User(
                    uid: try #require(account["localId"]?.stringValue),
                    token: try #require(account["idToken"]?.stringValue))
            }
            try await body(server, file, try await user("a"), try await user("b"))
        }
    }

    /// Exactly Firebase's refusal: 401 and `{"error":"Permission denied"}`.
    static func denied(_ result: HTTPResult, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 401, "\(result)", sourceLocation: sourceLocation)
        #expect(result.text == #"{"error":"Permission denied"}"#, sourceLocation: sourceLocation)
    }

    @Test("read, write, push, update and delete: own data only; nothing refused is applied")
    func ownership() async throws {
        try await Self.withRulesServer { server, _, a, b in
            let client = server.client
            let mine = "users/\(a.uid)"
            try expectOK(await client.tree("PUT", "\(mine)/name", #""Ada""#, headers: a.headers))
            Self.denied(try await client.tree("PUT", "\(mine)/name", #""Bob""#, headers: b.headers))
            Self.denied(try await client.tree("PUT", "\(mine)/name", #""Anon""#))
            Self.denied(try await client.tree("PUT", "\(mine)/name", #""Ada?""#, query: [("auth", b.token)]))
            // `?auth=` works as Authorization does, as in Firebase's REST API.
            try expectOK(await client.tree("PUT", "\(mine)/name", #""Ada L""#, query: [("auth", a.token)]))

            // Reads: the location, shallow, a query, the parent (no rule grants there).
            #expect(try expectOK(await client.tree("GET", "\(mine)/name", headers: a.headers)) == "Ada L")
            Self.denied(try await client.tree("GET", "\(mine)/name", headers: b.headers))
            Self.denied(try await client.tree("GET", mine))
            Self.denied(try await client.tree("GET", mine, query: [("shallow", "true")], headers: b.headers))
            Self.denied(
                try await client.tree(
                    "GET", mine, query: [("orderBy", "\"$key\""), ("limitToFirst", "1")], headers: b.headers))
            Self.denied(try await client.tree("GET", "users", headers: a.headers))
            Self.denied(try await client.tree("GET", mine, headers: ["X-Firebase-ETag": "true"] + b.headers))
            try expectOK(await client.tree("GET", mine, query: [("shallow", "true")], headers: a.headers))

            // Push: validated against `now`, which equals the server timestamp the write resolves.
            let pushed = try expectOK(
                await client.tree(
                    "POST", "\(mine)/posts", #"{"text":"hi","at":{".sv":"timestamp"}}"#, headers: a.headers))
            let post = try #require(pushed["name"]?.stringValue)
            Self.denied(
                try await client.tree(
                    "POST", "\(mine)/posts", #"{"text":"forged","at":{".sv":"timestamp"}}"#, headers: b.headers))
            Self.denied(try await client.tree("POST", "\(mine)/posts", #"{"text":"no time"}"#, headers: a.headers))
            Self.denied(try await client.tree("POST", "\(mine)/posts", #"{"text":"old","at":1}"#, headers: a.headers))
            Self.denied(
                try await client.tree(
                    "POST", "\(mine)/posts", #"{"text":"hi","at":{".sv":"timestamp"},"x":1}"#, headers: a.headers))
            Self.denied(
                try await client.tree(
                    "POST", "\(mine)/posts", #"{"text":"far too long for the rule","at":{".sv":"timestamp"}}"#,
                    headers: a.headers))

            // Multi-path updates: every path is judged against the tree as the whole update leaves it.
            try expectOK(
                await client.tree(
                    "PATCH", "\(mine)/posts/p2", #"{"text":"both","at":{".sv":"timestamp"}}"#, headers: a.headers))
            Self.denied(try await client.tree("PATCH", "\(mine)/posts/p3", #"{"text":"half"}"#, headers: a.headers))
            Self.denied(
                try await client.tree(
                    "PATCH", "", #"{"users/\#(a.uid)/name":"A2","users/\#(b.uid)/name":"B2"}"#, headers: a.headers))
            try expectOK(await client.tree("PATCH", "", #"{"users/\#(a.uid)/name":"A3"}"#, headers: a.headers))
            Self.denied(try await client.tree("PATCH", "users/\(b.uid)", #"{"name":"B4"}"#, headers: a.headers))
            Self.denied(try await client.tree("PATCH", "users/\(b.uid)", "{}", headers: a.headers))

            // Deletes, and deletes through null writes.
            Self.denied(try await client.tree("DELETE", mine, headers: b.headers))
            Self.denied(try await client.tree("PUT", "\(mine)/posts/\(post)", "null", headers: b.headers))
            Self.denied(try await client.tree("DELETE", "users", headers: a.headers))
            try expectOK(await client.tree("DELETE", "\(mine)/posts/p2", headers: a.headers))

            // Conditional writes: a refused writer gets 401, never the 412 that would show the current value.
            let tagged = try await client.tree("GET", "\(mine)/name", headers: ["X-Firebase-ETag": "true"] + a.headers)
            let etag = try #require(tagged.headers["etag"])
            Self.denied(
                try await client.tree("PUT", "\(mine)/name", #""Eve""#, headers: ["if-match": "stale"] + b.headers))
            let stale = try await client.tree(
                "PUT", "\(mine)/name", #""Ada""#, headers: ["if-match": "stale"] + a.headers)
            #expect(stale.status == 412 && (try? stale.json()) == "A3", "\(stale)")
            try expectOK(await client.tree("PUT", "\(mine)/name", #""Ada""#, headers: ["if-match": etag] + a.headers))

            // Nothing refused was applied: the tree holds exactly what the allowed writes made.
            let all = try expectOK(await client.tree("GET", "", headers: Self.admin))
            #expect(all["users"]?.objectValue?.keys.sorted() == [a.uid], "\(all)")
            #expect(all["users"]?[a.uid]?["name"] == "Ada")
            #expect(all["users"]?[a.uid]?["posts"]?.objectValue?.keys.sorted() == [post])
            #expect(all["users"]?[a.uid]?["posts"]?[post]?["text"] == "hi")
            #expect(all["users"]?[a.uid]?["posts"]?[post]?["at"]?.int64Value != nil)
            // The admin credential bypasses rules.
            try expectOK(await client.tree("PUT", "users/\(b.uid)/name", #""by admin""#, headers: Self.admin))
            #expect(try expectOK(await client.tree("GET", "users/\(b.uid)/name", headers: b.headers)) == "by admin")
            // …unless it asks to be judged as someone else (`databaseAuthVariableOverride` in the Admin SDKs).
            let asA = [("auth_variable_override", #"{"uid":"\#(a.uid)"}"#)]
            #expect(try expectOK(await client.tree("GET", "\(mine)/name", query: asA, headers: Self.admin)) == "Ada")
            Self.denied(try await client.tree("GET", "users/\(b.uid)/name", query: asA, headers: Self.admin))
            Self.denied(
                try await client.tree(
                    "GET", "\(mine)/name", query: [("auth_variable_override", "null")], headers: Self.admin))
            // Only an administrator may; for anyone else the parameter changes nothing.
            Self.denied(
                try await client.tree(
                    "PUT", "users/\(b.uid)/name", #""x""#, query: [("auth_variable_override", #"{"uid":"\#(b.uid)"}"#)],
                    headers: a.headers))
        }
    }

    @Test("query-based read rules: a read (or stream) is judged with its query parameters")
    func queryRules() async throws {
        try await Self.withRulesServer { server, _, a, b in
            let client = server.client
            try expectOK(
                await client.tree(
                    "PUT", "inbox/m1", #"{"from":"\#(b.uid)","to":"\#(a.uid)","text":"hi"}"#, headers: b.headers))
            try expectOK(
                await client.tree(
                    "PUT", "inbox/m2", #"{"from":"\#(a.uid)","to":"\#(b.uid)","text":"yo"}"#, headers: a.headers))
            let mine = [("orderBy", "\"to\""), ("equalTo", "\"\(a.uid)\"")]
            let inbox = try expectOK(await client.tree("GET", "inbox", query: mine, headers: a.headers))
            #expect(inbox.objectValue?.keys.sorted() == ["m1"], "\(inbox)")
            Self.denied(try await client.tree("GET", "inbox", query: mine, headers: b.headers))
            Self.denied(try await client.tree("GET", "inbox", headers: a.headers))
            Self.denied(
                try await client.tree(
                    "GET", "inbox", query: [("orderBy", "\"from\""), ("equalTo", "\"\(a.uid)\"")], headers: a.headers))
            let stream = try server.stream("inbox", query: mine, headers: a.headers)
            #expect(try await stream.dataEvents(1)[0].payload?.objectValue?.keys.sorted() == ["m1"])
            let refused = try server.stream("inbox", headers: a.headers)
            try await refused.waitForEnd()
            #expect(refused.status == 401)
            stream.close()
        }
    }

    @Test("streams: refused without read access; cancel when a change or new rules take access away")
    func streams() async throws {
        try await Self.withRulesServer { server, _, a, b in
            let client = server.client
            try expectOK(await client.tree("PUT", "rooms/r1/members/\(a.uid)", "true", headers: a.headers))
            try expectOK(await client.tree("PUT", "users/\(a.uid)/name", #""Ada""#, headers: a.headers))

            let other = try server.stream("users/\(a.uid)", headers: b.headers)
            try await other.waitForEnd()
            #expect(other.status == 401)
            #expect(other.received.isEmpty)
            let anonymous = try server.stream("rooms/r1")
            try await anonymous.waitForEnd()
            #expect(anonymous.status == 401)

            let room = try server.stream("rooms/r1", headers: a.headers)
            #expect(try await room.dataEvents(1)[0].payload == .object(["members": .object([a.uid: true])]))
            let own = try server.stream("users/\(a.uid)", query: [("auth", a.token)])
            #expect(try await own.dataEvents(1)[0].payload == .object(["name": "Ada"]))
            let watcher = try server.stream("rooms/r1", headers: Self.admin)
            _ = try await watcher.dataEvents(1)

            try expectOK(await client.tree("PUT", "rooms/r1/topic", #""news""#, headers: a.headers))
            #expect(
                try await room.dataEvents(1, after: 1)[0]
                    == StreamEvent(event: "put", data: #"{"path":"/topic","data":"news"}"#))
            Self.denied(try await client.tree("PUT", "rooms/r1/topic", #""spam""#, headers: b.headers))
            // A leaves the room: the change that removes the membership takes read access away, so the stream gets
            // `cancel` instead of that change, and ends.
            try expectOK(await client.tree("DELETE", "rooms/r1/members/\(a.uid)", headers: a.headers))
            let cancelled = try await room.events(1) { $0.event == "cancel" }
            #expect(cancelled[0].data == "null")
            try await room.waitForEnd()
            #expect(room.received.filter { $0.event == "put" || $0.event == "patch" }.count == 2)
            // The administrator's stream on the same room saw the change and stays open.
            #expect(
                try await watcher.dataEvents(2, after: 1)[1]
                    == StreamEvent(event: "put", data: #"{"path":"/members/\#(a.uid)","data":null}"#))

            // New rules that no longer let A read their own data: the open stream is cancelled at once.
            let replaced = try await client.request(
                "PUT", "/.settings/rules.json", body: Array(#"{"rules":{"users":{".read":false}}}"#.utf8),
                headers: Self.admin)
            #expect(replaced.status == 200, "\(replaced)")
            #expect(try await own.events(1) { $0.event == "cancel" }.count == 1)
            try await own.waitForEnd()
            // Administrators are not judged: the watcher stays open through the new rules.
            try expectOK(await client.tree("PUT", "rooms/r1/topic", #""still here""#, headers: Self.admin))
            #expect(try await watcher.dataEvents(1, after: 3)[0].payload == "still here")
            watcher.close()
        }
    }

    @Test(
        "/.settings/rules.json: GET returns the rules in force; PUT replaces them; bad rules are 400 and change nothing"
    )
    func settingsRules() async throws {
        try await Self.withRulesServer { server, _, a, b in
            let client = server.client
            let current = try await client.request("GET", "/.settings/rules.json", headers: Self.admin)
            #expect(current.status == 200)
            #expect(current.text == Self.rules)

            let bad = try await client.request(
                "PUT", "/.settings/rules.json",
                body: Array("{\n  \"rules\": {\n    \".read\": \"auth.uid ==\"\n  }\n}".utf8),
                headers: Self.admin)
            expectTreeError(bad, 400, ":3:")
            #expect(try await client.request("GET", "/.settings/rules.json", headers: Self.admin).text == Self.rules)
            Self.denied(try await client.tree("PUT", "users/\(a.uid)/name", #""Bob""#, headers: b.headers))

            let open = #"{"rules": {"users": {".read": "auth != null", ".write": "auth != null"}}}"#
            try expectOK(
                await client.request("PUT", "/.settings/rules.json", body: Array(open.utf8), headers: Self.admin))
            #expect(try await client.request("GET", "/.settings/rules.json").text == open)
            try expectOK(await client.tree("PUT", "users/\(a.uid)/name", #""Bob""#, headers: b.headers))
            Self.denied(try await client.tree("PUT", "users/\(a.uid)/name", #""Anon""#))
        }
    }

    @Test("getPriority(): data's from the store, newData's as the write leaves it")
    func priorities() async throws {
        let rules = #"""
            {"rules": {"ranked": {"$id": {
              ".read": "data.getPriority() === 'public'",
              ".write": "auth != null && newData.getPriority() !== null"}}}}
            """#
        try await Self.withRulesServer(rules: rules) { server, _, a, _ in
            let client = server.client
            try expectOK(await client.tree("PUT", "ranked/x", #"{"v":1,".priority":"public"}"#, headers: a.headers))
            #expect(try expectOK(await client.tree("GET", "ranked/x/v", headers: a.headers)) == 1)
            Self.denied(try await client.tree("PUT", "ranked/y", #"{"v":1}"#, headers: a.headers))
            try expectOK(await client.tree("PUT", "ranked/z", #"{"v":2,".priority":"secret"}"#, headers: a.headers))
            Self.denied(try await client.tree("GET", "ranked/z", headers: a.headers))
            try expectOK(await client.tree("PUT", "ranked/z/.priority", #""public""#, headers: a.headers))
            #expect(try expectOK(await client.tree("GET", "ranked/z/v", headers: a.headers)) == 2)
            // A PUT without a priority clears it, which the rule refuses.
            Self.denied(try await client.tree("PUT", "ranked/z", #"{"v":3}"#, headers: a.headers))
        }
    }

    @Test("each namespace has its own rules: the file rules the default one, others start closed until rules are put")
    func namespaces() async throws {
        try await Self.withRulesServer { server, _, a, _ in
            let client = server.client
            let other = Tree.unique("ns")
            let closed = #"{"rules": {".read": false, ".write": false}}"#
            #expect(
                try await client.request("GET", "/.settings/rules.json", query: [("ns", other)], headers: Self.admin)
                    .text == closed)
            Self.denied(try await client.tree("PUT", "free/x", "1", ns: other, headers: a.headers))

            let open = #"{"rules": {".read": "auth != null", ".write": "auth != null"}}"#
            try expectOK(
                await client.request(
                    "PUT", "/.settings/rules.json", query: [("ns", other)], body: Array(open.utf8),
                    headers: Self.admin))
            try expectOK(await client.tree("PUT", "free/x", "1", ns: other, headers: a.headers))
            #expect(try expectOK(await client.tree("GET", "free/x", ns: other, headers: a.headers)) == 1)
            // The default namespace, by any of its names, keeps the file's rules; a third namespace stays closed.
            for ns in [nil, "demo", "demo-default-rtdb"] {
                Self.denied(try await client.tree("PUT", "free/x", "1", ns: ns, headers: a.headers))
                #expect(
                    try await client.request(
                        "GET", "/.settings/rules.json", query: ns.map { [("ns", $0)] } ?? [], headers: Self.admin
                    ).text == Self.rules)
            }
            Self.denied(try await client.tree("PUT", "free/x", "1", ns: Tree.unique("ns"), headers: a.headers))
        }
    }

    @Test(
        "SIGHUP re-reads the rules file: new rules apply and streams they refuse are cancelled; a bad file changes nothing"
    )
    func hangup() async throws {
        try await Self.withRulesServer { server, file, a, _ in
            let client = server.client
            try expectOK(await client.tree("PUT", "users/\(a.uid)/name", #""Ada""#, headers: a.headers))
            let own = try server.stream("users/\(a.uid)", headers: a.headers)
            _ = try await own.dataEvents(1)

            try Data("{ \"rules\": { \".read\": tru".utf8).write(to: file)
            server.child.signal(SIGHUP)
            let deadline = ContinuousClock.now + .seconds(20)
            while !server.stderr.contains("rules reload failed"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(server.stderr.contains("rules reload failed"))
            // The broken file is refused; the old rules still let A write (and the stream sees it).
            try expectOK(await client.tree("PUT", "users/\(a.uid)/name", #""Ada 2""#, headers: a.headers))
            #expect(try await own.dataEvents(1, after: 1)[0].payload == "Ada 2")

            try Data(#"{"rules": {".read": false, ".write": false}}"#.utf8).write(to: file)
            server.child.signal(SIGHUP)
            #expect(try await own.events(1) { $0.event == "cancel" }.count == 1)
            try await own.waitForEnd()
            Self.denied(try await client.tree("PUT", "users/\(a.uid)/name", #""Ada 3""#, headers: a.headers))
        }
    }

    @Test("production without --database-rules: every client is refused, with a log line; the admin key works")
    func productionDefault() async throws {
        var options = HearthProcess.Options()
        options.dev = false
        options.extraArguments = ["--rules", OpenRules.path]
        options.environment["HEARTH_ADMIN_KEY"] = "tree-admin-key-0123456789"
        try await withHearth(options) { server in
            let client = server.client
            #expect(server.stderr.contains("no --database-rules file"))
            Self.denied(try await client.tree("PUT", "x", "1"))
            Self.denied(try await client.tree("GET", "x"))
            Self.denied(try await client.request("GET", "/.settings/rules.json"))
            let admin = ["Authorization": "Bearer tree-admin-key-0123456789"]
            try expectOK(await client.tree("PUT", "x", "1", headers: admin))
            #expect(try expectOK(await client.tree("GET", "x", headers: admin)) == 1)
            let stream = try server.stream("x")
            try await stream.waitForEnd()
            #expect(stream.status == 401)
        }
    }
}

extension Dictionary where Key == String, Value == String {
    fileprivate static func + (lhs: [String: String], rhs: [String: String]) -> [String: String] {
        lhs.merging(rhs) { _, new in new }
    }
}
