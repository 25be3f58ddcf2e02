import Foundation
import HearthCore
import HearthLog
import Synchronization
import Testing

@testable import HearthServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One wall clock, handed to the application, is what every part reads: a document's commit time, a read time, an
/// account's creation time, a tree server timestamp and a file's all come from a clock set to 2030.
@Suite("One wall clock")
struct WallClockTests {
    @Test func everyPartReadsTheInjectedClock() async throws {
        let start = Timestamp(microseconds: 1_893_456_000_000_000)  // 2030-01-01T00:00:00Z
        let clock = WallClock { start }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-clock-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = directory
        configuration.devMode = true
        let application = try HearthApplication(
            configuration: configuration, logger: Logger(level: .error) { _ in }, clock: clock)
        let port = try application.start()
        defer { application.stop() }
        let base = "http://127.0.0.1:\(port)"

        func post(_ path: String, _ body: String) async throws -> JSONValue {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = "POST"
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            let (data, _) = try await URLSession.shared.data(for: request)
            return try JSONParser.parse([UInt8](data))
        }
        let root = "/v1/projects/demo/databases/(default)/documents"
        let created = try await post(root + "/c?documentId=a", #"{"fields":{}}"#)
        #expect(created["createTime"] == .string("2030-01-01T00:00:00.000000Z"), "\(created)")
        let read = try await post(
            root + ":batchGet", #"{"documents":["projects/demo/databases/(default)/documents/c/a"]}"#)
        #expect(read[0]?["readTime"] == .string("2030-01-01T00:00:00.000000Z"), "\(read)")

        let signUp = try await post(
            "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
            #"{"email":"clock@example.com","password":"secret-pw","returnSecureToken":true}"#)
        let idToken = try #require(signUp["idToken"]?.stringValue, "\(signUp)")
        let lookup = try await post(
            "/identitytoolkit.googleapis.com/v1/accounts:lookup?key=k", #"{"idToken":"\#(idToken)"}"#)
        #expect(lookup["users"]?[0]?["createdAt"] == .string("1893456000000"), "\(lookup)")

        var put = URLRequest(url: URL(string: base + "/clock/at.json")!)
        put.httpMethod = "PUT"
        put.httpBody = Data(#"{".sv":"timestamp"}"#.utf8)
        let (stamped, _) = try await URLSession.shared.data(for: put)
        #expect(String(decoding: stamped, as: UTF8.self) == "1893456000000", "the tree's server timestamp")

        let uploaded = try await post("/v0/b/demo.appspot.com/o?name=clock.txt", "{}")
        #expect(uploaded["timeCreated"] == .string("2030-01-01T00:00:00.000Z"), "\(uploaded)")
    }
}
