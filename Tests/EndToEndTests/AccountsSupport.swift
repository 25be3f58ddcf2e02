import Foundation
import HearthCore
import HearthTesting
import Testing

/// Identity Toolkit calls for the accounts end-to-end tests.
enum Accounts {
    static let toolkit = "/identitytoolkit.googleapis.com/v1"

    static func uniqueEmail(_ label: String) -> String {
        "\(label)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
    }

    /// An unsigned custom token, as the Admin SDKs mint for an emulator host.
    static func unsignedCustomToken(_ payload: JSONValue) -> String {
        let header: JSONValue = ["alg": "none", "typ": "JWT"]
        return Base64URL.encode(header.serialized()) + "." + Base64URL.encode(payload.serialized()) + "."
    }

    /// The claims of a JWT, unverified.
    static func claims(_ token: String) -> JSONValue? {
        let parts = token.split(separator: ".")
        guard parts.count >= 2, let bytes = Base64URL.decode(parts[1]) else { return nil }
        return try? JSONParser.parse(bytes)
    }

    static let customTokenAudience =
        "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
}

extension HTTPClient {
    /// `POST /identitytoolkit.googleapis.com/v1/accounts:<verb>?key=…` with a JSON body.
    func accounts(_ verb: String, _ body: JSONValue, key: String? = "test-key") async throws -> HTTPResult {
        try await request(
            "POST", "\(Accounts.toolkit)/accounts:\(verb)", query: key.map { [("key", $0)] } ?? [],
            json: body.jsonString)
    }

    /// An admin call: `POST …/v1/projects/{p}/accounts[:verb]` with `Authorization: Bearer <credential>`.
    func admin(
        _ verb: String?, _ body: JSONValue, project: String = "demo", credential: String = "owner"
    ) async throws -> HTTPResult {
        let suffix = verb.map { ":\($0)" } ?? ""
        return try await request(
            "POST", "\(Accounts.toolkit)/projects/\(project)/accounts\(suffix)", json: body.jsonString,
            headers: ["Authorization": "Bearer \(credential)"])
    }

    /// Signs up a new email/password account and returns the response body.
    func signUp(
        _ email: String, password: String = "secret-password", sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        try expectOK(
            await accounts(
                "signUp", ["email": .string(email), "password": .string(password), "returnSecureToken": true]),
            sourceLocation: sourceLocation)
    }
}

/// Checks Identity Toolkit's error envelope and returns its message:
/// `{"error":{"code":400,"message":"CODE…","errors":[{"message":"CODE…","domain":"global","reason":"invalid"}]}}`.
@discardableResult
func expectAuthError(
    _ result: HTTPResult, _ code: String, status: Int = 400, sourceLocation: SourceLocation = #_sourceLocation
) -> String {
    #expect(result.status == status, "\(result)", sourceLocation: sourceLocation)
    let error = (try? JSONParser.parse(result.body))?["error"]
    let message = error?["message"]?.stringValue ?? ""
    #expect(
        message == code || message.hasPrefix(code + " : "), "expected \(code): \(result)",
        sourceLocation: sourceLocation)
    #expect(error?["code"] == .integer(Int64(status)), "\(result)", sourceLocation: sourceLocation)
    #expect(error?["errors"]?[0]?["message"]?.stringValue == message, "\(result)", sourceLocation: sourceLocation)
    return message
}

/// Waits until the wall clock enters a new second: revocation (`validSince`) counts whole seconds, as Firebase's does,
/// so a token must come from an earlier second than the change that revokes it.
func waitForNextSecond() async throws {
    let now = Date().timeIntervalSince1970
    try await Task.sleep(for: .milliseconds(Int((now.rounded(.down) + 1 - now) * 1000) + 50))
}
