import Foundation
import HearthHTTP
import HearthHTTPClient
import Testing

/// `OutboundHTTP` against a loopback server: what it sends, and each of its limits.
@Suite("Outbound HTTP")
struct OutboundHTTPTests {
    static func server(_ reply: @escaping @Sendable (HTTPRequest) -> HTTPResponse) throws -> HTTPServer {
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.threads = 1
        let server = HTTPServer(configuration: configuration, responder: HTTPClosureResponder { .response(reply($0)) })
        try server.start()
        return server
    }

    @Test func getAndPostWithHeadersAndCacheControl() throws {
        let server = try Self.server { request in
            var response = HTTPResponse.text(
                "\(request.method) \(request.headers["X-Probe"] ?? "") \(String(decoding: request.body, as: UTF8.self))"
            )
            response.headers.add(name: "Cache-Control", value: "public, max-age=60")
            return response
        }
        defer { server.stop() }
        var get = OutboundRequest(url: "http://127.0.0.1:\(server.port)/x", headers: [("X-Probe", "1")])
        get.allowPlainHTTP = true
        let answer = try OutboundHTTP.send(get)
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self) == "GET 1 ")
        #expect(answer.headers["cache-control"] == "public, max-age=60")
        var post = OutboundRequest(method: "POST", url: "http://127.0.0.1:\(server.port)/x", body: Array("a=b".utf8))
        post.allowPlainHTTP = true
        #expect(String(decoding: try OutboundHTTP.send(post).body, as: UTF8.self) == "POST  a=b")
    }

    @Test func plainHTTPIsRefusedUnlessAllowed() throws {
        #expect(throws: OutboundHTTPError.self) {
            try OutboundHTTP.send(OutboundRequest(url: "http://127.0.0.1:1/"))
        }
        do {
            _ = try OutboundHTTP.send(OutboundRequest(url: "ftp://127.0.0.1/"))
            Issue.record("ftp must be refused")
        } catch {
            #expect(error.kind == .invalidURL)
        }
    }

    @Test func aLongerBodyThanAllowedFails() throws {
        let server = try Self.server { _ in HTTPResponse(status: 200, body: [UInt8](repeating: 65, count: 300_000)) }
        defer { server.stop() }
        var request = OutboundRequest(url: "http://127.0.0.1:\(server.port)/big")
        request.allowPlainHTTP = true
        request.maximumResponseBytes = 100_000
        do {
            _ = try OutboundHTTP.send(request)
            Issue.record("a 300 KB body must exceed a 100 KB limit")
        } catch {
            #expect(error.kind == .tooLarge)
        }
        request.maximumResponseBytes = 400_000
        #expect(try OutboundHTTP.send(request).body.count == 300_000)
    }

    @Test func noServerIsATransportError() throws {
        let server = try Self.server { _ in .text("") }
        let port = server.port
        server.stop()
        var request = OutboundRequest(url: "http://127.0.0.1:\(port)/")
        request.allowPlainHTTP = true
        do {
            _ = try OutboundHTTP.send(request)
            Issue.record("a closed port must fail")
        } catch {
            #expect(error.kind == .transport)
        }
    }
}
