import HearthCore
import HearthRules
import Testing

@Suite("Firestore rules matching and methods")
struct MatchTests {
    static let source = """
        rules_version = '2';
        service cloud.firestore {
          function signedIn() { return request.auth != null; }
          match /databases/{database}/documents {
            function isOwner(uid) { return signedIn() && request.auth.uid == uid; }
            match /users/{userId} {
              allow get: if isOwner(userId);
              allow list: if false;
              allow create: if isOwner(userId) && request.resource.data.keys().hasOnly(['name']);
              allow update: if isOwner(userId);
              allow delete: if false;
              match /private/{doc=**} {
                allow read, write: if isOwner(userId);
              }
            }
            match /todos/{todoId} {
              allow read: if resource.data.owner == request.auth.uid;
              allow create: if request.resource.data.owner == request.auth.uid;
              allow update, delete: if resource.data.owner == request.auth.uid;
            }
            match /{path=**}/comments/{comment} {
              allow list: if request.query.limit <= 10;
            }
            match /public/{doc} {
              allow read;
            }
          }
        }
        """

    static let cases: [(String, FirestoreMethod, String, Bool, Bool)] = [
        // (description, method, path, authenticated as alice, expected)
        ("own profile get", .get, "users/alice", true, true),
        ("other profile get", .get, "users/bob", true, false),
        ("unauthenticated get", .get, "users/alice", false, false),
        ("list users", .list, "users", true, false),
        ("delete own profile", .delete, "users/alice", true, false),
        ("update own profile", .update, "users/alice", true, true),
        ("nested private, zero segments under doc=**", .get, "users/alice/private/a", true, true),
        ("nested private deep", .create, "users/alice/private/a/sub/b", true, true),
        ("nested private of another user", .get, "users/bob/private/a", true, false),
        ("unmatched collection", .get, "other/x", true, false),
        ("public unconditional", .get, "public/x", false, true),
        ("public write", .update, "public/x", true, false),
        ("public nested path not matched by {doc}", .get, "public/x/y/z", true, false),
    ]

    @Test("paths, wildcards, functions and method groups", arguments: cases)
    func decisions(
        _ name: String, _ method: FirestoreMethod, _ path: String, _ signedIn: Bool, _ expected: Bool
    )
        throws
    {
        let rules = try FirestoreRuleset(source: Self.source)
        let request = Fixture.request(method, path, auth: signedIn ? Fixture.alice : nil, existing: [:], new: [:])
        #expect(rules.authorize(request).isAllowed == expected, "\(name)")
    }

    @Test("create checks the new document's keys")
    func createKeys() throws {
        let rules = try FirestoreRuleset(source: Self.source)
        #expect(rules.authorize(Fixture.request(.create, "users/alice", new: ["name": .string("A")])).isAllowed)
        #expect(!rules.authorize(Fixture.request(.create, "users/alice", new: ["role": .string("admin")])).isAllowed)
    }

    @Test("todos owned by their creator")
    func ownership() throws {
        let rules = try FirestoreRuleset(source: Self.source)
        let mine: [String: Value] = ["owner": .string("alice")]
        let theirs: [String: Value] = ["owner": .string("bob")]
        #expect(rules.authorize(Fixture.request(.get, "todos/1", existing: mine)).isAllowed)
        #expect(!rules.authorize(Fixture.request(.get, "todos/1", existing: theirs)).isAllowed)
        #expect(!rules.authorize(Fixture.request(.get, "todos/1", existing: nil)).isAllowed)
        #expect(rules.authorize(Fixture.request(.create, "todos/1", new: mine)).isAllowed)
        #expect(!rules.authorize(Fixture.request(.create, "todos/1", new: theirs)).isAllowed)
        #expect(rules.authorize(Fixture.request(.delete, "todos/1", existing: mine)).isAllowed)
        #expect(!rules.authorize(Fixture.request(.update, "todos/1", existing: theirs, new: mine)).isAllowed)
    }

    @Test("rules are not filters: a list is judged from its equality constraints")
    func listConstraints() throws {
        let rules = try FirestoreRuleset(source: Self.source)
        #expect(rules.authorize(Fixture.request(.list, "todos", existing: ["owner": .string("alice")])).isAllowed)
        #expect(!rules.authorize(Fixture.request(.list, "todos", existing: ["owner": .string("bob")])).isAllowed)
        #expect(!rules.authorize(Fixture.request(.list, "todos", existing: [:])).isAllowed)
    }

    @Test("collection group with query limit")
    func collectionGroup() throws {
        let rules = try FirestoreRuleset(source: Self.source)
        var request = Fixture.request(.list, "comments", existing: [:], query: RulesQueryInfo(limit: 5))
        request.isCollectionGroup = true
        #expect(rules.authorize(request).isAllowed)
        request.query = RulesQueryInfo(limit: 50)
        #expect(!rules.authorize(request).isAllowed)
        let nested = Fixture.request(.list, "posts/p1/comments", existing: [:], query: RulesQueryInfo(limit: 10))
        #expect(rules.authorize(nested).isAllowed)
    }

    @Test("the decision names the granting rule or every rule tried")
    func explanation() throws {
        let rules = try FirestoreRuleset(source: Self.source)
        let granted = rules.authorize(Fixture.request(.get, "users/alice"))
        #expect(granted.grantedBy == SourceLocation(line: 7, column: 7))
        let denied = rules.authorize(Fixture.request(.get, "users/bob"))
        #expect(denied.outcomes.map(\.location) == [SourceLocation(line: 7, column: 7)])
        #expect(denied.explanation.contains("7:7: false"))
        let none = rules.authorize(Fixture.request(.get, "nothing/here"))
        #expect(none.explanation.contains("no allow statement"))
    }

    @Test("rules_version 1: {x=**} needs at least one segment")
    func versionOne() throws {
        let v1 = try FirestoreRuleset(
            source:
                "service cloud.firestore { match /databases/{d}/documents { match /a/{x}/{rest=**} { allow read; } } }")
        #expect(!v1.authorize(Fixture.request(.get, "a/b")).isAllowed)
        #expect(v1.authorize(Fixture.request(.get, "a/b/c/d")).isAllowed)
    }

    @Test("built-in deny-all and allow-all")
    func builtIns() {
        #expect(!FirestoreRuleset.denyAll.authorize(Fixture.request(.get, "a/b")).isAllowed)
        #expect(FirestoreRuleset.allowAll.authorize(Fixture.request(.delete, "a/b/c/d")).isAllowed)
    }
}
