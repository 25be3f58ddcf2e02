internal import HearthCore

/// Runs ``RulesTestCase``s against a ``RulesFile`` and reports failures with the rule lines that decided them.
public enum RulesTestRunner {
    /// One case's outcome.
    public struct Result: Sendable {
        /// The case.
        public var testCase: RulesTestCase
        /// What the rules decided; `nil` when the case could not be run (`error` says why).
        public var decision: RulesDecision?
        /// Why the case could not be run.
        public var error: String?
        /// Whether the decision matched the expectation.
        public var passed: Bool { decision.map { $0.isAllowed == testCase.expectAllow } ?? false }
    }

    /// Runs every case.
    public static func run(_ cases: [RulesTestCase], against rules: RulesFile) -> [Result] {
        cases.map { run($0, against: rules) }
    }

    static func run(_ testCase: RulesTestCase, against rules: RulesFile) -> Result {
        switch rules {
        case .firestore(let ruleset):
            guard let method = FirestoreMethod(rawValue: testCase.method) else {
                return Result(testCase: testCase, error: "unknown method '\(testCase.method)' for Firestore rules")
            }
            func fields(_ json: JSONValue?) -> [String: Value]? {
                guard let object = json?.objectValue else { return nil }
                return object.mapValues(Value.init(plainJSON:))
            }
            var before: [String: [String: Value]] = [:]
            for (path, data) in testCase.documents { before[trim(path)] = fields(data) ?? [:] }
            let key = testCase.path.joined(separator: "/")
            if method != .list, let existing = fields(testCase.resource) { before[key] = existing }
            var after: [String: [String: Value]]
            if let explicit = testCase.documentsAfter {
                after = [:]
                for (path, data) in explicit { after[trim(path)] = fields(data) ?? [:] }
            } else {
                after = before
                switch method {
                case .create, .update: after[key] = fields(testCase.data) ?? [:]
                case .delete: after[key] = nil
                default: break
                }
            }
            var request = FirestoreRequest(
                method: method, path: ResourcePath(segments: testCase.path), auth: testCase.auth, time: testCase.time,
                existingData: method == .list ? nil : fields(testCase.resource),
                newData: method == .create || method == .update ? (fields(testCase.data) ?? [:]) : nil,
                query: testCase.query, isCollectionGroup: testCase.collectionGroup)
            let reader = MapDocumentReader(before: before, after: after)
            guard method == .list else {
                return Result(testCase: testCase, decision: ruleset.authorize(request, reader: reader))
            }
            // As the server judges a list: every branch of the filter must be allowed.
            let pinned = RulesQueryConstraints(pinned: fields(testCase.resource) ?? [:])
            var decision = RulesDecision(isAllowed: false, grantedBy: nil, outcomes: [])
            for branch in RulesQueryConstraints.branches(of: testCase.filter) {
                request.queryConstraints = pinned.merged(with: branch)
                decision = ruleset.authorize(request, reader: reader)
                if !decision.isAllowed { break }
            }
            return Result(testCase: testCase, decision: decision)
        case .storage(let ruleset):
            return runStorage(testCase, ruleset)
        case .database(let ruleset):
            let before = JSONTreeReader(root: testCase.tree)
            let now = testCase.time.microseconds / 1000
            switch testCase.method {
            case "read":
                return Result(
                    testCase: testCase,
                    decision: ruleset.authorizeRead(path: testCase.path, auth: testCase.auth, data: before, now: now))
            case "write":
                let after = OverlayTreeReader(base: before, writes: [(testCase.path, testCase.data)])
                return Result(
                    testCase: testCase,
                    decision: ruleset.authorizeWrite(
                        path: testCase.path, auth: testCase.auth, before: before, after: after, now: now))
            default:
                return Result(testCase: testCase, error: "unknown method '\(testCase.method)' for database rules")
            }
        }
    }

    /// A storage case: `path` is the object name (for list, the prefix), `bucket` defaults to
    /// `demo.appspot.com`, `resource` the stored object's metadata and `data` the object the write would leave
    /// (`{"size", "contentType", "metadata", …}`), `documents` what `firestore.get()` reads.
    static func runStorage(_ testCase: RulesTestCase, _ ruleset: StorageRuleset) -> Result {
        guard let method = FirestoreMethod(rawValue: testCase.method) else {
            return Result(testCase: testCase, error: "unknown method '\(testCase.method)' for storage rules")
        }
        let name = testCase.path.joined(separator: "/")
        func object(_ json: JSONValue?) -> StorageRulesObject? {
            guard let json, json.objectValue != nil else { return nil }
            return StorageRulesObject(
                name: json["name"]?.stringValue ?? name, bucket: testCase.bucket, size: json["size"]?.int64Value ?? 0,
                contentType: json["contentType"]?.stringValue,
                metadata: (json["metadata"]?.objectValue ?? [:]).compactMapValues(\.stringValue))
        }
        var documents: [String: [String: Value]] = [:]
        for (path, data) in testCase.documents {
            documents[trim(path)] = (data.objectValue ?? [:]).mapValues(Value.init(plainJSON:))
        }
        let request = StorageRequest(
            method: method, bucket: testCase.bucket, name: name, auth: testCase.auth, time: testCase.time,
            existing: object(testCase.resource), incoming: object(testCase.data))
        let reader = MapDocumentReader(before: documents, after: documents)
        return Result(testCase: testCase, decision: ruleset.authorize(request, reader: reader))
    }

    static func trim(_ path: String) -> String {
        path.split(separator: "/").joined(separator: "/")
    }

    /// A report: one block per failure naming the deciding rule lines, then a summary line.
    public static func report(_ results: [Result], rulesSource: String, rulesName: String) -> String {
        let lines = rulesSource.split(separator: "\n", omittingEmptySubsequences: false)
        func quote(_ location: SourceLocation) -> String {
            let text = location.line <= lines.count ? lines[location.line - 1].trimmingWhitespace : ""
            return "    \(rulesName):\(location.line):\(location.column): \(text)"
        }
        var output = ""
        for result in results where !result.passed {
            let expected = result.testCase.expectAllow ? "allow" : "deny"
            guard let decision = result.decision else {
                output += "FAIL \(result.testCase.name): \(result.error ?? "could not run")\n"
                continue
            }
            let actual = decision.isAllowed ? "allow" : "deny"
            output += "FAIL \(result.testCase.name): expected \(expected), got \(actual)\n"
            if let granted = decision.grantedBy {
                output += "  allowed by:\n" + quote(granted) + "\n"
            } else if decision.outcomes.isEmpty {
                output +=
                    "  no allow statement matches \(result.testCase.method) on /"
                    + result.testCase.path.joined(separator: "/") + "\n"
            } else {
                output += "  denied; rules tried:\n"
                for outcome in decision.outcomes {
                    output += quote(outcome.location) + "  → \(outcome.result)\n"
                }
            }
        }
        let failed = results.filter { !$0.passed }.count
        output += "\(results.count - failed) passed, \(failed) failed\n"
        return output
    }
}

/// Documents for `get()`/`getAfter()` from dictionaries keyed by path.
struct MapDocumentReader: RulesDocumentReader {
    var before: [String: [String: Value]]
    var after: [String: [String: Value]]
    func document(at path: ResourcePath) -> [String: Value]? { before[path.description] }
    func documentAfter(at path: ResourcePath) -> [String: Value]? { after[path.description] }
}

extension Substring {
    fileprivate var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
