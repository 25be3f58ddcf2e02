import HearthCore
import HearthHTTP
import HearthRules

/// The rules in force, read and replaced over HTTP, and a playground that judges one request against them — what
/// the console's Rules page calls, and `curl` can too. Development mode, or the admin credential (the console's
/// session counts), as the emulators' endpoints need no credential only on a developer's machine:
///
/// - `GET`/`PUT /emulator/v1/projects/{p}:securityRules`: the document rules. The body is the Firestore emulator's
///   `{"rules": {"files": [{"content": "…"}]}}` or the rules text itself; `GET` answers the same JSON.
/// - `GET`/`PUT /emulator/v1/projects/{p}:storageRules`: the storage rules, likewise.
/// - `POST /emulator/v1/projects/{p}:testRules`: `{"rules": "firestore" | "storage" | "database", "source": "…"
///   (optional: the rules in force), "test": {one case, as `hearth rules test` reads them}}` → whether it is
///   allowed and which rule decided.
///
/// A source with errors is refused with `line:column` and the previous rules stay in force. The tree rules have
/// their own endpoint, Firebase's `/.settings/rules.json`.
struct RulesAPI: API {
    let engine: RulesEngine
    let configuration: ServerConfiguration
    let authenticator: RequestAuthenticator

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        let path = request.path
        guard path.hasPrefix("/emulator/v1/projects/"), let colon = path.lastIndex(of: ":") else { return nil }
        let verb = path[path.index(after: colon)...]
        guard ["securityRules", "storageRules", "testRules"].contains(verb) else { return nil }
        let route = "rules.\(verb)"
        do throws(HearthError) {
            if !configuration.devMode {
                guard try authenticator.authenticate(request)?.isAdmin == true else {
                    throw HearthError(.permissionDenied, "The rules endpoints need --dev or the admin credential.")
                }
            }
            switch (verb, request.method) {
            case ("securityRules", "GET"), ("storageRules", "GET"):
                let source =
                    verb == "securityRules"
                    ? engine.firestoreRules(for: try Self.database(of: request)).source : engine.storageRules.source
                return (route, .response(Self.filesJSON(source, name: Self.fileName(verb))))
            case ("securityRules", "PUT"), ("securityRules", "POST"):
                try engine.replaceFirestoreRules(
                    source: try Self.source(of: request.body), database: try Self.database(of: request))
                return (route, .response(Responses.emptyObject))
            case ("storageRules", "PUT"), ("storageRules", "POST"):
                try engine.replaceStorageRules(source: try Self.source(of: request.body))
                return (route, .response(Responses.emptyObject))
            case ("testRules", "POST"):
                return (route, .response(try playground(request.body)))
            default:
                throw HearthError.notFound("Method \(request.method) is not supported here.")
            }
        } catch {
            return (route, .response(Responses.error(error)))
        }
    }

    /// `?database=ID`: the named database whose own document rules are read or replaced (a Hearth extension; the
    /// emulator's rules bind every database); `(default)` without it.
    private static func database(of request: HTTPRequest) throws(HearthError) -> String {
        guard let id = request.queryValue("database"), id != DatabaseName.defaultDatabase
        else { return DatabaseName.defaultDatabase }
        guard DatabaseServer.isValidNamedID(id) else {
            throw .invalidArgument("Invalid database ID \"\(id.prefix(100))\".")
        }
        return id
    }

    private static func fileName(_ verb: Substring) -> String {
        verb == "securityRules" ? "firestore.rules" : "storage.rules"
    }

    private static func filesJSON(_ source: String, name: String) -> HTTPResponse {
        let json: JSONValue = ["rules": ["files": [["name": .string(name), "content": .string(source)]]]]
        return Responses.json(json.serialized())
    }

    /// Judges one case against the rules in force (or the `source` given), on the rules engine every request uses.
    private func playground(_ body: [UInt8]) throws(HearthError) -> HTTPResponse {
        let json: JSONValue
        do { json = try JSONParser.parse(body) } catch {
            throw .invalidArgument("Expected {\"rules\": \"firestore\", \"test\": {…}}.")
        }
        guard let test = json["test"], test.objectValue != nil else {
            throw .invalidArgument("Expected a \"test\" object: one case, as `hearth rules test` reads them.")
        }
        let rules: RulesFile
        if let source = json["source"]?.stringValue {
            do { rules = try RulesFile(source: source) } catch {
                throw .invalidArgument("\(error.location.line):\(error.location.column): \(error.message)")
            }
        } else {
            switch json["rules"]?.stringValue ?? "firestore" {
            case "firestore": rules = .firestore(engine.firestoreRules)
            case "storage": rules = .storage(engine.storageRules)
            case "database": rules = .database(engine.databaseRules(for: configuration.projectID))
            case let other: throw .invalidArgument("Unknown rules \"\(other)\": firestore, storage or database.")
            }
        }
        var named = test.objectValue ?? [:]
        if named["name"] == nil { named["name"] = "playground" }
        if named["expect"] == nil { named["expect"] = "allow" }
        let cases: [RulesTestCase]
        do { cases = try RulesTestCase.load(json: JSONValue.array([.object(named)]).jsonString) } catch {
            throw .invalidArgument(error.description)
        }
        guard let result = RulesTestRunner.run(cases, against: rules).first else {
            throw .invalidArgument("The test case could not be read.")
        }
        if let error = result.error { throw .invalidArgument(error) }
        guard let decision = result.decision else { throw .invalidArgument("The case could not be judged.") }
        var answer: [String: JSONValue] = [
            "allowed": .bool(decision.isAllowed), "explanation": .string(decision.explanation),
            "outcomes": .array(
                decision.outcomes.map {
                    [
                        "line": .integer(Int64($0.location.line)), "column": .integer(Int64($0.location.column)),
                        "result": .string($0.result),
                    ]
                }),
        ]
        if let granted = decision.grantedBy {
            answer["grantedBy"] = ["line": .integer(Int64(granted.line)), "column": .integer(Int64(granted.column))]
        }
        if let failure = decision.failure { answer["failure"] = .string(failure.message) }
        return Responses.json(JSONValue.object(answer).serialized())
    }

    /// The rules text from the emulator's JSON wrapper, or the body as is.
    static func source(of body: [UInt8]) throws(HearthError) -> String {
        let text = String(decoding: body, as: UTF8.self)
        guard text.drop(while: \.isWhitespace).first == "{", let json = try? JSONParser.parse(text) else { return text }
        guard let content = json["rules"]?["files"]?[0]?["content"]?.stringValue else {
            throw .invalidArgument("Expected {\"rules\": {\"files\": [{\"content\": \"…\"}]}}.")
        }
        return content
    }
}
