import Foundation
import Testing

@testable import Hearth

/// `FirebaseApp.configure()`'s sources: the environment over `GoogleService-Info.plist`'s keys.
@Suite("FirebaseApp.configure() settings")
struct ConfigureTests {
    @Test func thePlistsKeysConfigureTheApp() throws {
        let options = try #require(
            HearthOptions(
                environment: [:],
                plist: ["DATABASE_URL": "http://127.0.0.1:8080", "PROJECT_ID": "demo", "API_KEY": "key-1"]))
        #expect(options.serverURL.absoluteString == "http://127.0.0.1:8080")
        #expect(options.projectID == "demo")
        #expect(options.apiKey == "key-1")
    }

    @Test func theEnvironmentWinsKeyByKey() throws {
        let options = try #require(
            HearthOptions(
                environment: ["HEARTH_SERVER_URL": "http://10.0.0.2:9000", "HEARTH_API_KEY": ""],
                plist: [
                    "HEARTH_SERVER_URL": "http://127.0.0.1:8080", "DATABASE_URL": "https://x.firebaseio.com",
                    "PROJECT_ID": "demo", "API_KEY": "key-1",
                ]))
        #expect(options.serverURL.absoluteString == "http://10.0.0.2:9000")
        #expect(options.projectID == "demo")
        #expect(options.apiKey == "key-1", "an empty variable does not override")
    }

    @Test func withoutAServerOrProjectThereAreNoOptions() {
        #expect(HearthOptions(environment: [:], plist: ["PROJECT_ID": "demo"]) == nil)
        #expect(HearthOptions(environment: ["HEARTH_SERVER_URL": "http://127.0.0.1:1"], plist: [:]) == nil)
        #expect(
            HearthOptions(environment: ["HEARTH_SERVER_URL": "not a url", "HEARTH_PROJECT_ID": "p"], plist: [:]) == nil)
        #expect(FirebaseApp.self == HearthApp.self)
    }
}
