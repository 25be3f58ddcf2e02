import HearthRules
import Testing

@Suite("Firestore rules parser")
struct ParserTests {
    static let valid: [String] = [
        "service cloud.firestore { match /databases/{database}/documents { } }",
        "rules_version = '2'; service cloud.firestore { match /databases/{db}/documents { match /a/{b=**} { allow read; } } }",
        "rules_version = \"2\"; service cloud.firestore { function f(x) { let y = x + 1; return y > 2; } match /databases/{d}/documents { match /users/{u} { allow get, list: if f(1); allow create, update, delete: if request.auth.uid == u } } }",
        "rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /{path=**}/posts/{p} { allow read: if true; } } } // trailing",
        "rules_version='2'; service cloud.firestore { match /databases/{d}/documents { /* c */ match /x/{y} { allow read: if get(/databases/$(d)/documents/users/$(request.auth.uid)).data.admin == true; } } }",
        "rules_version='2'; service cloud.firestore { match /databases/{d}/documents { match /x/{y} { allow read: if exists(/databases/(default)/documents/a/b) && [1,2][0] == 1 && {'a': 1}.a == 1 && 'abc'[0:2] == 'ab' && (1 < 2 ? true : false) && request.time is timestamp; } } }",
    ]

    @Test("accepts valid files", arguments: valid)
    func acceptsValid(_ source: String) throws {
        _ = try FirestoreRuleset(source: source)
    }

    static let invalid: [(String, Int, Int, String)] = [
        ("service cloud.storage { }", 1, 9, "unsupported service"),
        ("service cloud.firestore {\n  match /a {\n    allow rea: if true;\n  }\n}", 3, 11, "unknown method 'rea'"),
        ("service cloud.firestore {\n  match /a {\n    allow read: true;\n  }\n}", 3, 17, "expected 'if'"),
        ("service cloud.firestore {\n  match /a {\n    allow read: if 1 +;\n  }\n}", 3, 23, "expected an expression"),
        ("service cloud.firestore {\n  match /a/{b {\n  }\n}", 2, 14, "expected '}' to close the wildcard"),
        ("service cloud.firestore {\n  match /a/{b=*} {\n  }\n}", 2, 15, "expected '**'"),
        ("service cloud.firestore {\n  match /a {\n    allow read: if 'abc;\n  }\n}", 3, 20, "unterminated string"),
        ("service cloud.firestore {\n  match /a {\n  }\n", 4, 1, "expected 'match' or 'function', found end of file"),
        ("rules_version = '3';", 1, 17, "unsupported rules_version"),
        ("service cloud.firestore { function f() { x; } }", 1, 42, "expected 'return'"),
        ("service cloud.firestore { } extra", 1, 29, "unexpected 'extra'"),
        (
            "rules_version = '2';\nservice cloud.firestore {\n match /a/{x=**}/{y=**} { } }", 3, 18,
            "only one recursive wildcard"
        ),
        ("service cloud.firestore {\n match /a { allow read: if a.; } }", 2, 30, "expected a field or method name"),
        ("service cloud.firestore {\n match /a { allow read: if # } }", 2, 28, "unexpected character"),
    ]

    @Test("reports line:column", arguments: invalid)
    func reportsLocation(_ source: String, _ line: Int, _ column: Int, _ fragment: String) {
        do {
            _ = try FirestoreRuleset(source: source)
            Issue.record("expected an error")
        } catch {
            #expect(error.location == SourceLocation(line: line, column: column), "\(error)")
            #expect(error.message.contains(fragment), "\(error)")
        }
    }

    @Test("deep nesting is an error, not a crash")
    func deepNesting() {
        let source =
            "service cloud.firestore { match /a { allow read: if " + String(repeating: "(", count: 5000) + "1"
            + String(repeating: ")", count: 5000) + "; } }"
        #expect(throws: RulesSyntaxError.self) { try FirestoreRuleset(source: source) }
        let unary =
            "service cloud.firestore { match /a { allow read: if " + String(repeating: "!", count: 5000) + "true; } }"
        #expect(throws: RulesSyntaxError.self) { try FirestoreRuleset(source: unary) }
    }
}
