import Foundation
import Hearth
import HearthTestSupport
import Testing

/// Storage rules seen through the SDK: a refusal is `unauthorized`, whoever asks.
@Suite("Storage rules through the SDK", .timeLimit(.minutes(2)))
struct StorageRulesSDKTests {
    static let rules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /users/{uid}/{file=**} {
              allow read, write: if request.auth != null && request.auth.uid == uid;
            }
          }
        }
        """

    @Test func aRefusalIsUnauthorized() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-srules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rulesFile = directory.appendingPathComponent("storage.rules")
        try Self.rules.write(to: rulesFile, atomically: true, encoding: .utf8)
        try await withServer(arguments: ["--storage-rules", rulesFile.path]) { server in
            let ann = server.app("ann")
            let bob = server.app("bob")
            let annID = try await Auth.auth(app: ann).createUser(withEmail: uniqueEmail(), password: "correct horse")
                .user.uid
            _ = try await Auth.auth(app: bob).createUser(withEmail: uniqueEmail(), password: "correct horse")
            let annsFile = Storage.storage(app: ann).reference().child("users/\(annID)/note.txt")
            _ = try await annsFile.putDataAsync(Data("mine".utf8))
            #expect(try await annsFile.data(maxSize: 10) == Data("mine".utf8))

            let asBob = Storage.storage(app: bob).reference(withPath: annsFile.fullPath)
            let nobody = Storage.storage(app: server.app("nobody")).reference(withPath: annsFile.fullPath)
            for reference in [asBob, nobody] {
                for attempt in ["read", "metadata", "write", "delete"] {
                    do {
                        switch attempt {
                        case "read": _ = try await reference.data(maxSize: 10)
                        case "metadata": _ = try await reference.getMetadata()
                        case "write": _ = try await reference.putDataAsync(Data("theirs".utf8))
                        default: try await reference.delete()
                        }
                        Issue.record("\(attempt) is refused")
                    } catch let error as StorageError {
                        #expect(error.code == .unauthorized, "\(attempt): \(error)")
                        #expect(error.object == annsFile.fullPath)
                    }
                }
            }
            #expect(try await annsFile.data(maxSize: 10) == Data("mine".utf8))
        }
    }
}
