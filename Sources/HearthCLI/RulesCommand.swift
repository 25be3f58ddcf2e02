import Foundation
import HearthRules

/// `hearth rules test RULES_FILE TESTS_FILE` and `hearth rules check RULES_FILE`: compiles a rules file (Firestore
/// or Realtime Database JSON), runs a JSON list of cases against it, and prints each failure with the rule lines that
/// decided it. Exit status: 0 all passed, 1 a case failed, 2 a file could not be read or compiled, 64 usage.
enum RulesCommand {
    static let help = """
        USAGE: hearth rules test RULES_FILE TESTS_FILE
               hearth rules check RULES_FILE

          test    run the cases in TESTS_FILE (JSON) against RULES_FILE; non-zero exit on any failure
          check   compile RULES_FILE and report the first error as FILE:LINE:COLUMN

        RULES_FILE is Firestore rules (service cloud.firestore { … }), storage rules (service firebase.storage { … })
        or Realtime Database rules ({"rules": {…}}).
        A case: {"name", "auth": null | "uid" | {"uid", "token"}, "method", "path", "resource", "data",
                 "documents", "query", "expect": "allow" | "deny"} — see docs/rules.md.
        """

    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        guard let action = arguments.first, action != "--help", action != "-h" else {
            print(help)
            return arguments.isEmpty ? 64 : 0
        }
        switch (action, arguments.count) {
        case ("test", 3): return test(rulesPath: arguments[1], testsPath: arguments[2])
        case ("check", 2):
            guard let rules = compile(arguments[1]) else { return 2 }
            _ = rules
            print("\(arguments[1]): OK")
            return 0
        default:
            printError("hearth rules: expected 'test RULES_FILE TESTS_FILE' or 'check RULES_FILE'\n\n\(help)")
            return 64
        }
    }

    static func test(rulesPath: String, testsPath: String) -> Int32 {
        guard let rules = compile(rulesPath) else { return 2 }
        guard let text = read(testsPath) else { return 2 }
        let cases: [RulesTestCase]
        do {
            cases = try RulesTestCase.load(json: text)
        } catch {
            printError("\(testsPath): \(error)")
            return 2
        }
        let results = RulesTestRunner.run(cases, against: rules)
        print(RulesTestRunner.report(results, rulesSource: rules.source, rulesName: rulesPath), terminator: "")
        return results.allSatisfy(\.passed) ? 0 : 1
    }

    static func compile(_ path: String) -> RulesFile? {
        guard let source = read(path) else { return nil }
        do {
            return try RulesFile(source: source)
        } catch {
            printError("\(path):\(error.location.line):\(error.location.column): error: \(error.message)")
            return nil
        }
    }

    static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else {
            printError("hearth rules: cannot read \(path)")
            return nil
        }
        return text
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
