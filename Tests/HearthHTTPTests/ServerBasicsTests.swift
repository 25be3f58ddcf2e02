import Foundation
import HearthHTTP
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct ServerBasicsTests {
    @Test func getAndPostReachTheResponder() throws {
        let seen = Locked<[HTTPRequest]>([])
        let server = try startServer { request in
            seen.update { $0.append(request) }
            return .response(
                HTTPResponse(
                    status: 201, headers: [("X-Echo-Method", request.method)],
                    body: Array("got ".utf8) + request.body))
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)

        let get = try client.request("GET", "/hello")
        #expect(get.status == 201)
        #expect(get.header("x-echo-method") == "GET")
        #expect(get.text == "got ")

        // Same connection: keep-alive must survive a request with a body.
        let post = try client.request("POST", "/items", body: Array("{\"a\":1}".utf8))
        #expect(post.status == 201)
        #expect(post.text == "got {\"a\":1}")

        let requests = seen.value
        try #require(requests.count == 2)
        #expect(requests[0].path == "/hello")
        #expect(requests[0].body.isEmpty)
        #expect(requests[1].method == "POST")
        #expect(requests[1].body == Array("{\"a\":1}".utf8))
        #expect(requests[1].remoteAddress == "127.0.0.1")
    }

    @Test func chunkedUploadIsAssembled() throws {
        let server = try startServer { .response(HTTPResponse(status: 200, body: $0.body)) }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send(
            "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.text == "hello world")
    }

    @Test func queryItemsKeepDuplicatesAndAreDecoded() throws {
        let seen = Locked<HTTPRequest?>(nil)
        let server = try startServer { request in
            seen.update { $0 = request }
            return text("ok")
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let target =
            "/v1/projects/p/databases/(default)/documents/my%20coll/d%C3%A9?updateMask.fieldPaths=a"
            + "&key=K&updateMask.fieldPaths=b.c&q=x+y%26z%3D&flag&empty="
        #expect(try client.request("PATCH", target).status == 200)

        let request = try #require(seen.value)
        #expect(request.method == "PATCH")
        #expect(request.path == "/v1/projects/p/databases/(default)/documents/my coll/dé")
        #expect(
            request.query == [
                HTTPQueryItem(name: "updateMask.fieldPaths", value: "a"),
                HTTPQueryItem(name: "key", value: "K"),
                HTTPQueryItem(name: "updateMask.fieldPaths", value: "b.c"),
                HTTPQueryItem(name: "q", value: "x y&z="),
                HTTPQueryItem(name: "flag", value: ""),
                HTTPQueryItem(name: "empty", value: ""),
            ])
        #expect(request.queryValues("updateMask.fieldPaths") == ["a", "b.c"])
        #expect(request.queryValue("q") == "x y&z=")
    }

    @Test func requestHeadersAreCaseInsensitiveAndOrdered() throws {
        let seen = Locked<HTTPHeaders>([])
        let server = try startServer { request in
            seen.update { $0 = request.headers }
            return .response(HTTPResponse(status: 200, headers: [("x-lower-case", "v")]))
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let response = try client.request(
            "GET", "/", headers: ["X-Custom: one", "x-custom: two", "AUTHORIZATION: Bearer t"])
        #expect(response.header("X-Lower-Case") == "v")

        let headers = seen.value
        #expect(headers["x-custom"] == "one")
        #expect(headers.values(for: "X-CUSTOM") == ["one", "two"])
        #expect(headers["Authorization"] == "Bearer t")
        #expect(headers["host"] == "127.0.0.1")
    }

    @Test func headGetsHeadersWithoutBody() throws {
        let server = try startServer { _ in text("twelve bytes") }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let head = try client.request("HEAD", "/")
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "12")
        // The next response on the same connection parses cleanly only if HEAD sent no body bytes.
        let get = try client.request("GET", "/")
        #expect(get.text == "twelve bytes")
    }

    @Test func portZeroReportsTheBoundPort() throws {
        let server = try startServer { _ in text("ok") }
        defer { server.stop() }
        #expect(server.port > 0)
        #expect(try RawClient(port: server.port).request("GET", "/").status == 200)
        server.stop()
        #expect(server.port == 0)
    }

    @Test func secondServerOnTheSamePortFailsClearly() throws {
        let first = try startServer { _ in text("ok") }
        defer { first.stop() }
        var configuration = HTTPServer.Configuration()
        configuration.port = first.port
        let second = HTTPServer(configuration: configuration, responder: HTTPClosureResponder { _ in text("no") })
        let error = try #require(throws: HTTPServerError.self) { try second.start() }
        #expect(error.code == .addressInUse)
        #expect(error.description.contains("127.0.0.1:\(first.port)"))
    }

    @Test func invalidConfigurationIsRejected() throws {
        var configuration = HTTPServer.Configuration()
        configuration.host = "localhost"
        let server = HTTPServer(configuration: configuration, responder: HTTPClosureResponder { _ in text("") })
        let error = try #require(throws: HTTPServerError.self) { try server.start() }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("localhost"))
    }

    @Test func startTwiceIsAnError() throws {
        let server = try startServer { _ in text("ok") }
        defer { server.stop() }
        let error = try #require(throws: HTTPServerError.self) { try server.start() }
        #expect(error.code == .invalidState)
    }

    @Test func openConnectionsCountsLiveClients() throws {
        let server = try startServer { _ in text("ok") }
        defer { server.stop() }
        #expect(server.openConnections == 0)
        var clients: [RawClient] = []
        for _ in 0..<3 {
            let client = try RawClient(port: server.port)
            #expect(try client.request("GET", "/").status == 200)
            clients.append(client)
        }
        #expect(waitUntil { server.openConnections == 3 })
        for client in clients { client.close() }
        #expect(waitUntil { server.openConnections == 0 })
    }

    @Test func urlSessionClientInteroperates() async throws {
        let server = try startServer { request in
            .response(.json(bytes: Array("{\"path\":\"\(request.path)\",\"size\":\(request.body.count)}".utf8)))
        }
        defer { server.stop() }
        var post = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/echo?x=1")!)
        post.httpMethod = "POST"
        post.httpBody = Data(repeating: 0x61, count: 100_000)
        let (data, response) = try await URLSession.shared.data(for: post)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "application/json; charset=utf-8")
        #expect(String(decoding: data, as: UTF8.self) == "{\"path\":\"/echo\",\"size\":100000}")
    }
}
