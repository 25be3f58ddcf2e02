import HearthAuth
import HearthCore
import HearthHTTP
import HearthLog
import Synchronization
import Testing

@testable import HearthServer

/// Error answers caught once in the responder: a server failure reaches the client as an opaque message with a
/// request ID in its API's envelope, and its log line carries the detail under the same ID; every failed request
/// leaves one line with its route, status and reason.
@Suite("Failed answers")
struct FailedAnswerTests {
    /// An API that answers every request with `response`.
    struct FixedAPI: API {
        let response: HTTPResponse
        func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
            ("test.route", .response(response))
        }
    }

    /// The responder over `response`, and the log lines it writes.
    static func answer(_ response: HTTPResponse, logLevel: Logger.Level = .info) -> (HTTPResponse, [JSONValue]) {
        let lines = Mutex<[String]>([])
        let logger = Logger(level: logLevel) { line in lines.withLock { $0.append(line) } }
        let responder = HearthResponder(
            apis: [FixedAPI(response: response)], metrics: Metrics(), logger: logger,
            cors: CORSPolicy(origins: [], devMode: false))
        guard case .response(let answered) = responder.reply(to: HTTPRequest(method: "GET", path: "/x")) else {
            Issue.record("expected an immediate response")
            return (response, [])
        }
        let parsed = lines.withLock { $0 }.compactMap { try? JSONParser.parse(Array($0.utf8)) }
        return (answered, parsed)
    }

    static let secret = "disk I/O error in /var/lib/hearth/hearth.sqlite-wal at page 7"

    @Test("a google.rpc INTERNAL error: the client sees a request ID, never the internal text; the log line has both")
    func internalDocumentsError() throws {
        let (answer, lines) = Self.answer(Responses.error(.internal(Self.secret)))
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == 500)
        #expect(!text.contains("disk I/O"), "\(text)")
        let body = try JSONParser.parse(answer.body)
        #expect(body["error"]?["status"] == .string("INTERNAL"))
        #expect(body["error"]?["code"] == .integer(500))
        let requestID = try #require(answer.headers["X-Request-Id"])
        #expect(body["error"]?["message"]?.stringValue?.contains(requestID) == true, "\(text)")
        let line = try #require(lines.first)
        #expect(lines.count == 1)
        #expect(line["level"] == .string("error"))
        #expect(line["requestId"] == .string(requestID))
        #expect(line["detail"] == .string(Self.secret))
        #expect(line["route"] == .string("test.route"))
        #expect(line["reason"] == .string("INTERNAL"))
    }

    @Test("an Identity Toolkit INTERNAL_ERROR keeps its code (the SDKs parse it) and loses its detail")
    func internalAccountsError() throws {
        let (answer, lines) = Self.answer(
            AccountsJSON.error(
                AuthError("INTERNAL_ERROR", Self.secret, status: 500, statusName: "INTERNAL", reason: "backendError")))
        let body = try JSONParser.parse(answer.body)
        let message = try #require(body["error"]?["message"]?.stringValue)
        #expect(message.hasPrefix("INTERNAL_ERROR : "), "\(message)")
        #expect(!message.contains("disk"))
        #expect(body["error"]?["errors"]?[0]?["message"] == .string(message))
        let requestID = try #require(answer.headers["X-Request-Id"])
        #expect(message.contains(requestID))
        #expect(lines.first?["detail"]?.stringValue?.contains(Self.secret) == true)
        #expect(lines.first?["reason"] == .string("INTERNAL_ERROR"))
    }

    @Test("the tree's {\"error\": …} is made opaque too")
    func internalTreeError() throws {
        let (answer, lines) = Self.answer(TreeResponses.error(.internal(Self.secret)))
        let body = try JSONParser.parse(answer.body)
        let message = try #require(body["error"]?.stringValue)
        #expect(!message.contains("disk") && message.contains(answer.headers["X-Request-Id"] ?? "?"), "\(message)")
        #expect(lines.first?["detail"] == .string(Self.secret))
    }

    @Test("a client's error is answered unchanged and logged once at info with its reason, without its message")
    func clientErrorLoggedAtInfo() throws {
        let original = Responses.error(
            .notFound("Document \"projects/p/databases/(default)/documents/users/ann\" not found."))
        let (answer, lines) = Self.answer(original)
        #expect(answer.body == original.body)
        #expect(answer.headers["X-Request-Id"] == nil)
        let line = try #require(lines.first)
        #expect(lines.count == 1)
        #expect(line["level"] == .string("info"))
        #expect(line["status"] == .integer(404))
        #expect(line["reason"] == .string("NOT_FOUND"))
        #expect(!String(describing: line).contains("users/ann"), "no document path in the log")
    }

    @Test("a 501 for what Hearth does not serve is information, not an error; 503 is a warning")
    func unimplementedAndUnavailable() throws {
        let (_, unimplemented) = Self.answer(AccountsJSON.error(.notImplemented("accounts:batchCreate")))
        #expect(unimplemented.first?["level"] == .string("info"))
        let (unavailable, lines) = Self.answer(Responses.error(HearthError(.unavailable, "The disk is full.")))
        #expect(lines.first?["level"] == .string("warning"))
        #expect(String(decoding: unavailable.body, as: UTF8.self).contains("The disk is full."))
    }

    @Test("successful requests leave no line at info, one at debug")
    func successes() throws {
        let (_, quiet) = Self.answer(Responses.emptyObject)
        #expect(quiet.isEmpty)
        let (_, debug) = Self.answer(Responses.emptyObject, logLevel: .debug)
        #expect(debug.count == 1 && debug.first?["level"] == .string("debug"))
    }
}
