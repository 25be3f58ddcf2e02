import HearthCore
import HearthHTTP

/// `PUT /emulator/v1/projects/{p}:securityRules` (development mode): replaces the document rules, as the Firestore
/// emulator does. The body is the emulator's `{"rules": {"files": [{"content": "…"}]}}` or the rules text itself.
/// A source with errors is rejected with `line:column` and the previous rules stay in force.
struct RulesAPI: API {
    let engine: RulesEngine
    let configuration: ServerConfiguration

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        let path = request.path
        guard path.hasPrefix("/emulator/v1/projects/"), path.hasSuffix(":securityRules") else { return nil }
        do throws(HearthError) {
            guard configuration.devMode else {
                throw HearthError(.permissionDenied, "The emulator rules endpoint is only available with --dev.")
            }
            guard request.method == "PUT" || request.method == "POST" else {
                throw HearthError.notFound("Method \(request.method) is not supported here; use PUT.")
            }
            try engine.replaceFirestoreRules(source: try Self.source(of: request.body))
            return ("rules.replace", .response(Responses.emptyObject))
        } catch {
            return ("rules.replace", .response(Responses.error(error)))
        }
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
