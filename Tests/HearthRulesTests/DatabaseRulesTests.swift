import HearthCore
import HearthRules
import Testing

@Suite("Realtime Database rules")
struct DatabaseRulesTests {
    static let source = """
        {
          // Comments are allowed, as in the Firebase console.
          "rules": {
            ".read": false,
            "posts": {
              "$uid": {
                ".read": "auth != null && auth.uid === $uid",
                ".write": "auth != null && auth.uid == $uid",
                "$postId": {
                  ".validate": "newData.hasChildren(['text', 'createdAt']) && newData.child('text').isString() && newData.child('text').val().length <= 280",
                  "text": { ".validate": "newData.val().length > 0" },
                  "createdAt": { ".validate": "newData.isNumber() && newData.val() <= now" },
                  "$other": { ".validate": false }
                }
              }
            },
            "public": { ".read": true, "secret": { ".read": false } },
            "admins": { ".indexOn": ["name", "age"] },
            "profiles": {
              "$uid": {
                ".write": "$uid === auth.uid && (!data.exists() || data.child('owner').val() === auth.uid)",
                ".validate": "newData.child('owner').val() === auth.uid && root.child('banned').child(auth.uid).exists() == false",
                "name": { ".validate": "newData.val().matches(/^[A-Za-z ]+$/) && newData.val().toLowerCase().beginsWith('a')" }
              }
            }
          }
        }
        """

    static let now: Int64 = 1_700_000_000_000
    static let tree: JSONValue = .object([
        "posts": .object(["alice": .object(["p1": .object(["text": .string("hi"), "createdAt": .integer(1)])])]),
        "public": .object(["x": .integer(1), "secret": .string("s")]),
        "banned": .object(["mallory": .bool(true)]),
    ])

    func read(_ path: String, _ auth: AuthContext?) throws -> Bool {
        let rules = try DatabaseRuleset(source: Self.source)
        return rules.authorizeRead(
            path: path.split(separator: "/").map(String.init), auth: auth, data: JSONTreeReader(root: Self.tree),
            now: Self.now
        ).isAllowed
    }

    func write(_ path: String, _ value: JSONValue?, _ auth: AuthContext?) throws -> Bool {
        let rules = try DatabaseRuleset(source: Self.source)
        let segments = path.split(separator: "/").map(String.init)
        let before = JSONTreeReader(root: Self.tree)
        let after = OverlayTreeReader(base: before, writes: [(segments, value)])
        return rules.authorizeWrite(path: segments, auth: auth, before: before, after: after, now: Self.now).isAllowed
    }

    static let reads: [(String, String?, Bool)] = [
        ("posts/alice", "alice", true), ("posts/alice/p1/text", "alice", true), ("posts/alice", "bob", false),
        ("posts/alice", nil, false), ("posts", "alice", false), ("", "alice", false),
        ("public", nil, true),
        // Cascading: the grant at /public cannot be revoked by /public/secret.
        ("public/secret", nil, true), ("elsewhere", "alice", false),
    ]

    @Test("reads cascade from the root", arguments: reads)
    func readCascade(_ path: String, _ uid: String?, _ expected: Bool) throws {
        let auth = uid.map { AuthContext(uid: $0, claims: [:], isAdmin: false) }
        #expect(try read(path, auth) == expected)
    }

    static let post: JSONValue = .object(["text": .string("hello"), "createdAt": .integer(5)])

    static let writes: [(String, String, JSONValue?, String?, Bool)] = [
        ("own post", "posts/alice/p2", post, "alice", true),
        ("someone else's post", "posts/bob/p2", post, "alice", false),
        ("unauthenticated", "posts/alice/p2", post, nil, false),
        ("missing createdAt", "posts/alice/p2", .object(["text": .string("x")]), "alice", false),
        ("empty text", "posts/alice/p2", .object(["text": .string(""), "createdAt": .integer(1)]), "alice", false),
        (
            "future timestamp", "posts/alice/p2",
            .object(["text": .string("x"), "createdAt": .integer(9_999_999_999_999)]), "alice", false
        ),
        (
            "unknown child rejected by $other", "posts/alice/p2",
            .object(["text": .string("x"), "createdAt": .integer(1), "extra": .bool(true)]), "alice", false
        ),
        ("write one child: ancestor .validate still holds", "posts/alice/p1/text", .string("edited"), "alice", true),
        ("write one child breaking ancestor .validate", "posts/alice/p1/text", .integer(3), "alice", false),
        ("delete skips .validate", "posts/alice/p1", nil, "alice", true),
        (
            "profile create", "profiles/alice", .object(["owner": .string("alice"), "name": .string("Alice")]), "alice",
            true
        ),
        (
            "profile name regex", "profiles/alice", .object(["owner": .string("alice"), "name": .string("Alice9")]),
            "alice", false
        ),
        (
            "profile name must begin with a", "profiles/alice",
            .object(["owner": .string("alice"), "name": .string("Bob")]), "alice", false
        ),
        ("banned via root", "profiles/mallory", .object(["owner": .string("mallory")]), "mallory", false),
        ("profile for another", "profiles/bob", .object(["owner": .string("alice")]), "alice", false),
        ("root write", "", .object([:]), "alice", false),
    ]

    @Test("writes need a cascading .write and every .validate", arguments: writes)
    func writeChecks(_ name: String, _ path: String, _ value: JSONValue?, _ uid: String?, _ expected: Bool) throws {
        let auth = uid.map { AuthContext(uid: $0, claims: [:], isAdmin: false) }
        #expect(try write(path, value, auth) == expected, "\(name)")
    }

    @Test(".indexOn is exposed")
    func indexOn() throws {
        let rules = try DatabaseRuleset(source: Self.source)
        #expect(rules.indexOn(path: ["admins"]) == ["name", "age"])
        #expect(rules.indexOn(path: ["posts", "x"]).isEmpty)
    }

    static let invalid: [(String, Int, Int, String)] = [
        ("{\"rules\": {\".read\": \"auth.uid ==\"}}", 1, 33, "expected an expression"),
        ("{\n  \"rules\": {\n    \".reed\": true\n  }\n}", 3, 5, "unknown rule '.reed'"),
        ("{\"rules\": {\"$a\": {}, \"$b\": {}}}", 1, 22, "two wildcards"),
        ("{\"rules\": {\".read\": 1}}", 1, 21, "expected a rule string"),
        ("{\"rulez\": {}}", 1, 2, "unknown top-level key"),
        ("{\"rules\": {\".write\": \"newData.val() ==== 1\"}}", 1, 40, "expected an expression"),
    ]

    @Test("syntax errors carry line:column", arguments: invalid)
    func syntaxErrors(_ source: String, _ line: Int, _ column: Int, _ fragment: String) {
        do {
            _ = try DatabaseRuleset(source: source)
            Issue.record("expected an error")
        } catch {
            #expect(error.location == SourceLocation(line: line, column: column), "\(error)")
            #expect(error.message.contains(fragment), "\(error)")
        }
    }

    @Test("built-in rule sets")
    func builtIns() {
        let tree = JSONTreeReader(root: nil)
        #expect(!DatabaseRuleset.denyAll.authorizeRead(path: ["a"], auth: nil, data: tree, now: 0).isAllowed)
        #expect(
            DatabaseRuleset.allowAll.authorizeWrite(path: ["a"], auth: nil, before: tree, after: tree, now: 0).isAllowed
        )
    }
}

@Suite("Realtime Database rules: query-based read rules")
struct DatabaseQueryRulesTests {
    static let rules = try! DatabaseRuleset(
        source: """
            {"rules": {"messages": {
              ".read": "auth != null && query.orderByChild === 'to' && query.equalTo === auth.uid && (query.limitToFirst == null || query.limitToFirst <= 50)"
            }, "all": {".read": "query.orderByKey === false && query.equalTo === null"}}}
            """)

    static let cases: [([String: JSONValue], String, Bool)] = [
        (["orderByChild": "to", "equalTo": "ann"], "messages", true),
        (["orderByChild": "to", "equalTo": "ann", "limitToFirst": 10], "messages", true),
        (["orderByChild": "to", "equalTo": "ann", "limitToFirst": 100], "messages", false),
        (["orderByChild": "to", "equalTo": "bob"], "messages", false),
        (["orderByChild": "from", "equalTo": "ann"], "messages", false),
        ([:], "messages", false),
        // Without query parameters every member has its default.
        ([:], "all", true), (["orderByKey": true], "all", false),
    ]

    @Test("query.* holds the read's parameters over Firebase's defaults", arguments: cases)
    func query(_ query: [String: JSONValue], _ path: String, _ expected: Bool) {
        let decision = Self.rules.authorizeRead(
            path: [path], auth: AuthContext(uid: "ann", claims: [:], isAdmin: false),
            data: JSONTreeReader(root: nil), now: 0, query: query)
        #expect(decision.isAllowed == expected, "\(decision.explanation)")
    }
}
