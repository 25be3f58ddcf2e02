import HearthCore
import HearthHTTP

/// What the responder learns from, and does to, an error answer before it leaves: the reason for the log line, and for
/// a server failure (500: `INTERNAL`, `UNKNOWN`, `DATA_LOSS`) an opaque message in place of the internal text.
///
/// Every API renders its errors in its own envelope — google.rpc.Status (`{"error":{"code","message","status"}}`),
/// Identity Toolkit (`{"error":{"code","message":"CODE : detail","errors":[…]}}`) or the tree's `{"error":"…"}` — so
/// this reads and rewrites the message where each envelope keeps it, and nothing else. A client gets
/// `Internal error (request ID X)` and an `X-Request-Id` header; the log line with the same ID keeps the detail
/// (SQLite's text, a file name), which is for the operator and may describe the server's internals.
struct FailedAnswer: Sendable {
    /// The error's reason as the envelope names it: google.rpc's `status` (`NOT_FOUND`), Identity Toolkit's code
    /// (`EMAIL_EXISTS`); `nil` for the tree, whose messages may quote a key the client sent.
    let reason: String?
    /// The message the API wrote, for the log line of a server failure; `nil` otherwise.
    let detail: String?
    /// The request ID shown to the client, for a server failure.
    let requestID: String?

    /// Inspects `response` (status 400 or more) and, for a 500, replaces its message by an opaque one.
    static func inspect(_ response: inout HTTPResponse) -> FailedAnswer {
        guard case .object(var root)? = try? JSONParser.parse(response.body) else {
            return FailedAnswer(reason: nil, detail: nil, requestID: nil)
        }
        var message: String?
        var reason: String?
        var envelope: [String: JSONValue]?
        switch root["error"] {
        case .object(let error):
            envelope = error
            message = error["message"]?.stringValue
            if let message, let code = identityToolkitCode(message) {
                reason = code
            } else {
                reason = error["status"]?.stringValue
            }
        case .string(let text):
            message = text
        default:
            break
        }
        guard response.status == 500 else { return FailedAnswer(reason: reason, detail: nil, requestID: nil) }
        let requestID = newRequestID()
        let opaque = "Internal error (request ID \(requestID))."
        if var error = envelope {
            // Identity Toolkit's SDKs read the code before " : ", so it stays; the detail is replaced.
            let shown = message.flatMap(identityToolkitCode).map { "\($0) : \(opaque)" } ?? opaque
            error["message"] = .string(shown)
            if case .array(let items)? = error["errors"] {
                error["errors"] = .array(
                    items.map { item in
                        guard case .object(var fields) = item, fields["message"] != nil else { return item }
                        fields["message"] = .string(shown)
                        return .object(fields)
                    })
            }
            root["error"] = .object(error)
        } else if message != nil {
            root["error"] = .string(opaque)
        }
        response.body = JSONValue.object(root).serialized()
        response.headers.add(name: "X-Request-Id", value: requestID)
        return FailedAnswer(reason: reason, detail: message, requestID: requestID)
    }

    /// The code of an Identity Toolkit message (`EMAIL_EXISTS`, `INTERNAL_ERROR : detail`): upper-case letters,
    /// digits and underscores before an optional ` : `.
    private static func identityToolkitCode(_ message: String) -> String? {
        let code = message.split(separator: " ", maxSplits: 1).first.map(String.init) ?? message
        guard !code.isEmpty,
            code.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F })
        else { return nil }
        let rest = message.dropFirst(code.count)
        return rest.isEmpty || rest.hasPrefix(" : ") ? code : nil
    }

    /// Sixteen hexadecimal digits: enough to find one line in a day of logs; not a secret.
    private static func newRequestID() -> String {
        let value = UInt64.random(in: 0...UInt64.max)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
