import Foundation
import Hearth
import HearthTestSupport
import Synchronization

/// A scripted ``Transport``: records every request and answers from a handler, so SDK logic runs without a server.
final class FakeTransport: Transport {
    private let handler: @Sendable (TransportRequest) throws -> TransportResponse
    private let log = Mutex<[TransportRequest]>([])

    init(_ handler: @escaping @Sendable (TransportRequest) throws -> TransportResponse) { self.handler = handler }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        log.withLock { $0.append(request) }
        return try handler(request)
    }

    /// The requests sent so far.
    var requests: [TransportRequest] { log.withLock { $0 } }

    /// A JSON response.
    static func json(_ text: String, status: Int = 200) -> TransportResponse {
        TransportResponse(status: status, headers: ["content-type": "application/json"], body: Data(text.utf8))
    }
}

/// An app wired to a fake transport, with its own storage directory.
func fakeApp(_ transport: FakeTransport) -> HearthApp {
    let name = "fake-\(UUID().uuidString.prefix(8))"
    let storage = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-sdk-unit-\(name)")
    // Removed when the test process exits (the app's cache may still be open until then).
    removeAtExit(storage)
    HearthApp.configure(
        name: name,
        options: HearthOptions(
            serverURL: URL(string: "http://fake.invalid:1")!, projectID: "demo", apiKey: "k", storageDirectory: storage),
        transport: transport)
    return HearthApp.app(name: name)!
}

/// A JSON object parsed from a request body.
func bodyJSON(_ request: TransportRequest) -> [String: Any] {
    guard let body = request.body else { return [:] }
    return (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
}

/// A syntactically valid unsigned JWT with the given claims (the SDK only reads claims, never checks signatures).
func fakeJWT(_ claims: [String: Any]) -> String {
    func encode(_ object: [String: Any]) -> String {
        let data = try! JSONSerialization.data(withJSONObject: object)
        return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }
    return encode(["alg": "none"]) + "." + encode(claims) + ".sig"
}
