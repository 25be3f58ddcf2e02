import HearthCore
import HearthRules
import Testing

/// A storage error inside `get()`/`exists()` stops the rules with that error: it never reads as a missing document,
/// which `!exists(…)` would turn into an allow.
@Suite("Rules read failures")
struct ReadFailureTests {
    /// A reader whose every read fails, as a store with a broken disk would.
    struct FailingReader: RulesDocumentReader {
        static let fault = HearthError(.unavailable, "disk I/O error")
        func document(at path: ResourcePath) throws(HearthError) -> [String: Value]? { throw Self.fault }
        func documentAfter(at path: ResourcePath) throws(HearthError) -> [String: Value]? { throw Self.fault }
    }

    static let blocked = "/databases/$(database)/documents/blocked/$(request.auth.uid)"

    @Test(
        "a failing read denies and carries its error, for exists, !exists, get and getAfter",
        arguments: [
            "!exists(\(blocked))", "exists(\(blocked))", "get(\(blocked)).data.ok == true",
            "getAfter(\(blocked)) == null", "true && !existsAfter(\(blocked))",
        ])
    func failingReadDenies(condition: String) throws {
        let rules = try Fixture.rules(condition)
        let decision = rules.authorize(Fixture.request(.get, "users/alice"), reader: FailingReader())
        #expect(!decision.isAllowed)
        #expect(decision.failure == FailingReader.fault, "\(decision.explanation)")
    }

    @Test("a later allow statement does not grant once a read failed (the error is fatal)")
    func failureStopsLaterStatements() throws {
        let rules = try FirestoreRuleset(
            source: """
                rules_version = '2';
                service cloud.firestore {
                  match /databases/{database}/documents {
                    match /users/{uid} {
                      allow read: if !exists(\(Self.blocked));
                      allow read: if request.auth.uid == uid || true;
                    }
                  }
                }
                """)
        let decision = rules.authorize(Fixture.request(.get, "users/alice"), reader: FailingReader())
        #expect(!decision.isAllowed)
        #expect(decision.failure != nil)
    }

    @Test("the same rules with a working reader decide on the data, without a failure")
    func workingReader() throws {
        let rules = try Fixture.rules("!exists(\(Self.blocked))")
        let open = rules.authorize(Fixture.request(.get, "users/alice"), reader: DictionaryReader(before: [:]))
        #expect(open.isAllowed && open.failure == nil)
        let blocked = rules.authorize(
            Fixture.request(.get, "users/alice"), reader: DictionaryReader(before: ["blocked/alice": [:]]))
        #expect(!blocked.isAllowed && blocked.failure == nil)
    }
}
