import HearthCore
import HearthHTTP
import HearthStore

extension TreeAPI {
    /// What `GET /.settings/rules.json` answers before any rules were stored: what is in force, which (until rules
    /// are enforced) is open access.
    static let defaultRules = #"{"rules":{".read":true,".write":true}}"#

    /// `/.settings/rules.json`: read or replace a namespace's rules text. Replacing needs development mode or the
    /// admin credential, as Firebase needs the database secret or an admin token.
    func rules(_ request: TreeRequest, _ http: HTTPRequest, auth: AuthContext?) throws(HearthError) -> HTTPReply {
        switch request.method {
        case "GET":
            let text = try tree.rules(request.namespace) ?? Self.defaultRules
            return .response(TreeResponses.bytes(Array(text.utf8), request.printing))
        case "PUT":
            guard configuration.devMode || auth?.isAdmin == true else { throw Self.permissionDenied }
            if http.bodyTooLarge { throw HearthError(.resourceExhausted, "The rules are too large.") }
            let text = String(decoding: http.body, as: UTF8.self)
            guard case .object(let members)? = try? JSONParser.parse(TreeRulesText.strippingComments(text)),
                members["rules"]?.objectValue != nil
            else {
                throw .invalidArgument(
                    "Invalid rules: expected a JSON object with a \"rules\" object (comments allowed).")
            }
            return .deferred { [tree, hub] respond in
                tree.setRules(request.namespace, text) { result in
                    switch result {
                    case .success:
                        hub.recheckAccess()
                        respond(TreeResponses.json(.object(["status": .string("ok")]), request.printing))
                    case .failure(let error):
                        respond(TreeResponses.error(error))
                    }
                }
            }
        default:
            throw HearthError(.unimplemented, "Method \(request.method) is not supported on the rules; use GET or PUT.")
        }
    }
}

/// Rules files are JSON with `//` and `/* */` comments, as Firebase accepts them.
enum TreeRulesText {
    /// `text` with its comments blanked out (string contents untouched).
    static func strippingComments(_ text: String) -> String {
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        var index = 0
        var inString = false
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                out.append(byte)
                if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                    out.append(bytes[index + 1])
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                out.append(byte)
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                continue
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                index += 2
                while index + 1 < bytes.count,
                    !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/"))
                { index += 1 }
                index += 2
                out.append(UInt8(ascii: " "))
                continue
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
