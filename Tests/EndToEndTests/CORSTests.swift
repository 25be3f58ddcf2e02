import Foundation
import HearthCore
import HearthTesting
import Testing

/// CORS on every API, as a web page on another origin uses them: the preflight the browser sends before a
/// Firebase web SDK call, and `Access-Control-Allow-Origin` on the answer itself.
@Suite("CORS", .timeLimit(.minutes(2)))
struct CORSTests {
    static let allowed = "https://app.example.com"
    static let foreign = "https://evil.example.net"

    /// One request path per API, with the method the web SDK then sends.
    static let routes: [(api: String, method: String, path: String)] = [
        ("accounts", "POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=web-key"),
        ("secure token", "POST", "/securetoken.googleapis.com/v1/token?key=web-key"),
        ("documents", "PATCH", "/v1/projects/demo/databases/(default)/documents/todos/1"),
        ("queries", "POST", "/v1/projects/demo/databases/(default)/documents:runQuery"),
        ("listen channel", "POST", "/v1/projects/demo/databases/(default)/documents:listen?session=s"),
        ("tree", "PUT", "/chat/messages.json"),
    ]

    /// The headers Firebase's web SDKs name in `Access-Control-Request-Headers`.
    static let webSDKHeaders =
        "authorization,content-type,x-client-version,x-firebase-gmpid,x-firebase-client,x-firebase-appcheck,"
        + "x-goog-api-client,x-goog-request-params,google-cloud-resource-prefix,x-firebase-etag,if-match"

    static func preflight(
        _ client: HTTPClient, _ method: String, _ path: String, origin: String
    ) async throws
        -> HTTPResult
    {
        try await client.request(
            "OPTIONS", path,
            headers: [
                "Origin": origin, "Access-Control-Request-Method": method,
                "Access-Control-Request-Headers": webSDKHeaders,
            ])
    }

    @Test(
        "outside dev mode, a preflight from a --cors-origins origin succeeds for every API with the web SDKs' headers")
    func allowedOriginPreflight() async throws {
        var options = HearthProcess.Options()
        options.dev = false
        options.extraArguments = ["--cors-origins", "\(Self.allowed), https://other.example.com"]
        try await withHearth(options) { server in
            for route in Self.routes {
                let answer = try await Self.preflight(server.client, route.method, route.path, origin: Self.allowed)
                #expect(answer.status == 204, "\(route.api): \(answer)")
                #expect(
                    answer.headers["access-control-allow-origin"] == Self.allowed, "\(route.api): \(answer.headers)")
                let methods = answer.headers["access-control-allow-methods"] ?? ""
                #expect(methods.contains(route.method), "\(route.api): \(methods)")
                let allowedHeaders = Set(
                    (answer.headers["access-control-allow-headers"] ?? "").split(separator: ",").map {
                        $0.trimmingCharacters(in: .whitespaces).lowercased()
                    })
                for header in Self.webSDKHeaders.split(separator: ",") {
                    #expect(allowedHeaders.contains(String(header)), "\(route.api): \(header) not allowed")
                }
            }
        }
    }

    @Test("outside dev mode, a preflight from any other origin is refused and carries no Allow-Origin")
    func foreignOriginPreflight() async throws {
        var options = HearthProcess.Options()
        options.dev = false
        options.extraArguments = ["--cors-origins", Self.allowed]
        try await withHearth(options) { server in
            for route in Self.routes {
                let answer = try await Self.preflight(server.client, route.method, route.path, origin: Self.foreign)
                #expect(answer.status == 403, "\(route.api): \(answer)")
                #expect(answer.headers["access-control-allow-origin"] == nil, "\(route.api): \(answer.headers)")
                _ = expectError(answer, 403, "PERMISSION_DENIED")
            }
            // A real request from that origin is still served (CORS is the browser's check), but nothing in the
            // answer lets the browser hand it to the page.
            let read = try await server.client.request(
                "GET", "/chat.json", headers: ["Origin": Self.foreign])
            #expect(read.status == 200 || read.status == 401, "\(read)")
            #expect(read.headers["access-control-allow-origin"] == nil, "\(read.headers)")
        }
    }

    @Test("without --cors-origins and outside dev mode, no origin is allowed")
    func noOriginsByDefault() async throws {
        var options = HearthProcess.Options()
        options.dev = false
        try await withHearth(options) { server in
            let answer = try await Self.preflight(
                server.client, "POST", Self.routes[0].path, origin: "http://localhost:3000")
            #expect(answer.status == 403, "\(answer)")
            #expect(answer.headers["access-control-allow-origin"] == nil)
        }
    }

    @Test("in dev mode any origin may call every API; answers, deferred answers and listen streams carry Allow-Origin")
    func devModeAnswersCarryAllowOrigin() async throws {
        try await withHearth { server in
            let origin = "http://localhost:5173"
            for route in Self.routes {
                let answer = try await Self.preflight(server.client, route.method, route.path, origin: origin)
                #expect(answer.status == 204, "\(route.api): \(answer)")
                #expect(answer.headers["access-control-allow-origin"] == origin, "\(route.api)")
            }
            // A sign-up (answered later, off the HTTP thread) from the page's origin.
            let signUp = try await server.client.request(
                "POST", Self.routes[0].path,
                json: #"{"email":"cors@example.com","password":"secret123","returnSecureToken":true}"#,
                headers: ["Origin": origin])
            #expect(signUp.status == 200, "\(signUp)")
            #expect(signUp.headers["access-control-allow-origin"] == origin, "\(signUp.headers)")
            #expect(signUp.headers["vary"]?.contains("Origin") == true, "\(signUp.headers)")
            // A document write and a read; the tree's ETag is readable by the page.
            let write = try await server.client.request(
                "PATCH", "/v1/projects/demo/databases/(default)/documents/todos/1",
                json: #"{"fields":{"title":{"stringValue":"milk"}}}"#, headers: ["Origin": origin])
            #expect(write.status == 200, "\(write)")
            #expect(write.headers["access-control-allow-origin"] == origin)
            let tree = try await server.client.request(
                "GET", "/chat.json", headers: ["Origin": origin, "X-Firebase-ETag": "true"])
            #expect(tree.status == 200, "\(tree)")
            #expect(tree.headers["access-control-allow-origin"] == origin)
            #expect(tree.headers["access-control-expose-headers"]?.contains("ETag") == true, "\(tree.headers)")
            // An error answer too, so the page can read Firestore's error.
            let missing = try await server.client.request(
                "GET", "/v1/projects/demo/databases/(default)/documents/todos/none", headers: ["Origin": origin])
            #expect(missing.status == 404)
            #expect(missing.headers["access-control-allow-origin"] == origin)
            // The listen channel's stream.
            let stream = try ListenStream.open(server, headers: ["Origin: \(origin)"])
            defer { stream.client.close() }
            #expect(
                stream.client.responseHead.lowercased().contains("access-control-allow-origin: \(origin)"),
                "\(stream.client.responseHead)")
        }
    }

    @Test("an OPTIONS request that is not a preflight still reaches the tree, which lists its methods")
    func plainOptions() async throws {
        try await withHearth { server in
            let answer = try await server.client.request("OPTIONS", "/chat.json")
            #expect(answer.status == 200, "\(answer)")
            #expect(answer.headers["allow"]?.contains("PATCH") == true, "\(answer.headers)")
            #expect(answer.headers["access-control-allow-origin"] == nil)
        }
    }
}
