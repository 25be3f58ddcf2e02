import HearthCore
import HearthRules
import Testing

@Suite("get(), exists(), getAfter(), existsAfter() and limits")
struct ReadTests {
    static let source = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            function role() { return get(/databases/$(database)/documents/roles/$(request.auth.uid)).data.role; }
            match /docs/{id} {
              allow read: if role() == 'reader' || role() == 'admin';
              allow create: if exists(/databases/$(database)/documents/roles/$(request.auth.uid))
                && getAfter(/databases/$(database)/documents/docs/$(id)).data.size == 1
                && existsAfter(/databases/$(database)/documents/index/$(id));
            }
            match /many/{id} {
              allow read: if exists(/databases/$(database)/documents/a/1) || exists(/databases/$(database)/documents/a/2)
                || exists(/databases/$(database)/documents/a/3) || exists(/databases/$(database)/documents/a/4)
                || exists(/databases/$(database)/documents/a/5) || exists(/databases/$(database)/documents/a/6)
                || exists(/databases/$(database)/documents/a/7) || exists(/databases/$(database)/documents/a/8)
                || exists(/databases/$(database)/documents/a/9) || exists(/databases/$(database)/documents/a/10)
                || exists(/databases/$(database)/documents/a/11);
            }
            match /loop/{id} {
              function f(n) { return n <= 0 ? true : f(n - 1); }
              allow read: if f(100);
            }
            match /big/{id} {
              allow read: if [1,2,3,4,5,6,7,8,9,10].hasAll([1,2,3]) && [1,2,3,4,5,6,7,8,9,10].size() == 10
                && [1,2,3,4,5,6,7,8,9,10].size() == 10 && [1,2,3,4,5,6,7,8,9,10].size() == 10;
            }
          }
        }
        """

    @Test("get() reads through the reader")
    func getReads() throws {
        let rules = try FirestoreRuleset(source: Self.source)
        let reader = DictionaryReader(before: ["roles/alice": ["role": .string("reader")]])
        #expect(rules.authorize(Fixture.request(.get, "docs/1"), reader: reader).isAllowed)
        #expect(!rules.authorize(Fixture.request(.get, "docs/1", auth: Fixture.bob), reader: reader).isAllowed)
    }

    @Test("getAfter() and existsAfter() see the commit's result")
    func afterReads() throws {
        let rules = try FirestoreRuleset(source: Self.source)
        let before: [String: [String: Value]] = ["roles/alice": [:]]
        var after = before
        after["docs/1"] = ["size": .integer(1)]
        after["index/1"] = [:]
        let create = Fixture.request(.create, "docs/1", new: ["size": .integer(1)])
        #expect(rules.authorize(create, reader: DictionaryReader(before: before, after: after)).isAllowed)
        #expect(!rules.authorize(create, reader: DictionaryReader(before: before, after: before)).isAllowed)
        let batch = rules.authorize(batch: [create, create], reader: DictionaryReader(before: before, after: after))
        #expect(batch.count == 2 && batch.allSatisfy(\.isAllowed))
    }

    @Test("more than 10 document reads deny the request")
    func readCap() throws {
        let rules = try FirestoreRuleset(source: Self.source)
        let decision = rules.authorize(Fixture.request(.get, "many/x"), reader: EmptyDocumentReader())
        #expect(!decision.isAllowed)
        #expect(decision.explanation.contains("document reads"))
        let present = DictionaryReader(before: ["a/10": [:]])
        #expect(rules.authorize(Fixture.request(.get, "many/x"), reader: present).isAllowed)
    }

    @Test("call depth and expression counts are bounded")
    func bounded() throws {
        let rules = try FirestoreRuleset(source: Self.source)
        let deep = rules.authorize(Fixture.request(.get, "loop/x"))
        #expect(!deep.isAllowed)
        #expect(deep.explanation.contains("depth"))
        #expect(rules.authorize(Fixture.request(.get, "big/x")).isAllowed)
        let tight = rules.authorize(Fixture.request(.get, "big/x"), limits: RulesLimits(maximumSteps: 20))
        #expect(!tight.isAllowed)
        #expect(tight.explanation.contains("limit"))
    }
}
