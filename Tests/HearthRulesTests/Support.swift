import HearthCore
import HearthRules

/// Shared fixtures: a fixed clock, users, and rules built around one condition.
enum Fixture {
    static let now = Timestamp(seconds: 1_700_000_000, nanos: 0)
    static let alice = AuthContext(
        uid: "alice", claims: ["email": .string("alice@example.com"), "admin": .bool(true)], isAdmin: false)
    static let bob = AuthContext(uid: "bob", claims: ["email": .string("bob@example.com")], isAdmin: false)

    /// Rules granting `methods` on every document when `condition` holds.
    static func rules(_ condition: String, methods: String = "read, write") throws -> FirestoreRuleset {
        try FirestoreRuleset(
            source: """
                rules_version = '2';
                service cloud.firestore {
                  match /databases/{database}/documents {
                    match /{document=**} {
                      allow \(methods): if \(condition);
                    }
                  }
                }
                """)
    }

    /// A request by `auth` for `method` on `path`.
    static func request(
        _ method: FirestoreMethod, _ path: String, auth: AuthContext? = alice, existing: [String: Value]? = nil,
        new: [String: Value]? = nil, query: RulesQueryInfo? = nil
    ) -> FirestoreRequest {
        FirestoreRequest(
            method: method, path: ResourcePath(segments: path.split(separator: "/").map(String.init)), auth: auth,
            time: now, existingData: existing, newData: new, query: query)
    }

    /// Whether `condition` holds for a get of `users/alice` by alice whose stored document is `data`.
    static func holds(_ condition: String, data: [String: Value] = sample, new: [String: Value]? = nil) throws -> Bool {
        let method: FirestoreMethod = new == nil ? .get : .update
        return try rules(condition).authorize(request(method, "users/alice", existing: data, new: new)).isAllowed
    }

    static let sample: [String: Value] = [
        "owner": .string("alice"),
        "count": .integer(3),
        "ratio": .double(0.5),
        "tags": .array([.string("a"), .string("b")]),
        "profile": .map(["name": .string("Alice"), "age": .integer(30)]),
        "created": .timestamp(Timestamp(seconds: 1_600_000_000, nanos: 0)),
        "place": .geoPoint(latitude: 52.0, longitude: 4.0),
        "blob": .bytes([0xDE, 0xAD]),
        "nothing": .null,
    ]
}

/// A reader over a dictionary of documents.
struct DictionaryReader: RulesDocumentReader {
    var before: [String: [String: Value]]
    var after: [String: [String: Value]]? = nil

    func document(at path: ResourcePath) -> [String: Value]? { before[path.description] }
    func documentAfter(at path: ResourcePath) -> [String: Value]? { (after ?? before)[path.description] }
}
