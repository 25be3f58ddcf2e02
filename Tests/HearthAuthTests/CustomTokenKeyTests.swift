import Foundation
import HearthCore
import HearthCrypto
import Testing

@testable import HearthAuth

@Suite struct CustomTokenKeyTests {
    private func payload(_ now: Int64, uid: String = "server-user") -> [String: JSONValue] {
        [
            "aud": .string(CustomTokens.audience), "uid": .string(uid), "iss": "svc@example.com",
            "sub": "svc@example.com",
            "iat": .integer(now), "exp": .integer(now + 3600),
        ]
    }

    @Test func outsideDevelopmentOnlyRegisteredKeysSign() throws {
        // Register a key before the service starts: keys/custom-token/backend.pem.
        let registered = try RSAPrivateKey.generate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-ct-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(
            atPath: directory + "/keys/custom-token", withIntermediateDirectories: true)
        try registered.publicKey.pemRepresentation().write(
            toFile: directory + "/keys/custom-token/backend.pem", atomically: true, encoding: .utf8)
        let time = TestClock()
        let service = try Fixture.open(
            directory: directory, dev: false, outbox: .init(), clock: time.clock, logs: LogLines())
        defer { service.close() }
        let now = time.clock.seconds

        let good = try JWT.signRS256(payload: payload(now), keyID: "backend", key: registered)
        #expect(try service.signInWithCustomToken(good, context: Fixture.client).user.uid == "server-user")

        let unsigned = JWT.unsigned(payload: payload(now))
        #expect(
            authErrorCode { _ = try service.signInWithCustomToken(unsigned, context: Fixture.client) }
                == "INVALID_CUSTOM_TOKEN")
        #expect(
            authErrorCode { _ = try service.signInWithCustomToken(#"{"uid":"x"}"#, context: Fixture.client) }
                == "INVALID_CUSTOM_TOKEN")
        let stranger = try JWT.signRS256(payload: payload(now), keyID: "backend", key: try RSAPrivateKey.generate())
        #expect(
            authErrorCode { _ = try service.signInWithCustomToken(stranger, context: Fixture.client) }
                == "INVALID_CUSTOM_TOKEN")
        let expired = try JWT.signRS256(payload: payload(now - 7200), keyID: "backend", key: registered)
        #expect(
            authErrorCode { _ = try service.signInWithCustomToken(expired, context: Fixture.client) }
                == "INVALID_CUSTOM_TOKEN")
        // Outside development mode `owner` is no admin credential.
        #expect(!service.isAdminCredential("owner"))
    }

    @Test func adminCredentials() throws {
        let dev = try Fixture()
        #expect(dev.service.isAdminCredential("owner"))
        #expect(!dev.service.isAdminCredential("someone"))
        let keyed = try Fixture(dev: false) { $0.adminKey = "k3y-with-entropy" }
        #expect(keyed.service.isAdminCredential("k3y-with-entropy"))
        #expect(!keyed.service.isAdminCredential("owner"))
        #expect(!keyed.service.isAdminCredential("k3y-with-entropz"))
    }
}
