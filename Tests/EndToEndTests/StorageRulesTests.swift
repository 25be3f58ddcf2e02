import Foundation
import HearthCore
import HearthTesting
import Testing

/// Storage rules (`--storage-rules`) on every Storage path, with two users, on a production-mode server.
@Suite struct StorageRulesTests {
    static let rules = """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /users/{uid}/{file=**} {
              allow read: if request.auth != null;
              allow create, update: if request.auth.uid == uid && request.resource.size < 1000
                && request.resource.contentType.matches('image/.*');
              allow delete: if request.auth.uid == uid && resource.metadata.get('locked', 'no') != 'yes';
            }
            match /shared/{file} {
              allow read: if firestore.exists(/databases/(default)/documents/members/$(request.auth.uid));
              allow write: if firestore.get(/databases/(default)/documents/members/$(request.auth.uid)).data.role
                == 'editor';
            }
          }
        }
        """

    private func writeRules(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func rulesJudgeEveryPathForTwoUsers() async throws {
        let rulesPath = FileManager.default.temporaryDirectory.appendingPathComponent(
            "storage-\(UUID().uuidString).rules"
        ).path
        defer { try? FileManager.default.removeItem(atPath: rulesPath) }
        try writeRules(Self.rules, to: rulesPath)
        var options = HearthProcess.Options()
        options.dev = false
        options.extraArguments = ["--rules", OpenRules.path, "--storage-rules", rulesPath]
        try await withHearth(options) { server in
            let client = server.client
            let ann = try await client.signUp(Accounts.uniqueEmail("ann"))
            let bob = try await client.signUp(Accounts.uniqueEmail("bob"))
            let annID = try #require(ann["localId"]?.stringValue)
            let bobID = try #require(bob["localId"]?.stringValue)
            let asAnn = ["Authorization": "Firebase \(try #require(ann["idToken"]?.stringValue))"]
            let asBob = ["Authorization": "Bearer \(try #require(bob["idToken"]?.stringValue))"]
            let annFile = "users/\(annID)/avatar.png"

            // Uploads: the owner, an image, under 1000 bytes — judged at the start and again at the end.
            let stored = try expectOK(
                await client.upload(annFile, patternBytes(10), contentType: "image/png", headers: asAnn))
            expectStorageError(
                try await client.upload(
                    "users/\(annID)/bob.png", patternBytes(10), contentType: "image/png", headers: asBob), 403)
            expectStorageError(
                try await client.upload(annFile, patternBytes(2000), contentType: "image/png", headers: asAnn), 403)
            expectStorageError(
                try await client.upload(annFile, patternBytes(10), contentType: "text/plain", headers: asAnn), 403)
            // Chunked, so the start sees no size: the real size is judged before the commit.
            let socket = try RawSocket(port: server.port)
            let chunk = String(repeating: "p", count: 1500)
            try socket.send(
                "POST \(Storage.objects())?name=users/\(annID)/big.png HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                    + "Authorization: \(asAnn["Authorization"]!)\r\nContent-Type: image/png\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n5dc\r\n\(chunk)\r\n0\r\n\r\n")
            #expect(socket.readAll().status == 403)
            expectStorageError(
                try await client.request("GET", Storage.object("users/\(annID)/big.png"), headers: asBob), 404)
            // Resumable: declared small at the start, too big at the finalize.
            let url = try await client.startResumable(
                "users/\(annID)/r.png", metadata: #"{"contentType":"image/png"}"#,
                headers: asAnn.merging(["X-Goog-Upload-Header-Content-Length": "10"]) { $1 })
            expectStorageError(
                try await client.resumable(
                    url, "upload, finalize", offset: 0, body: patternBytes(1200), headers: asAnn),
                403)
            // Multipart: judged once its metadata part is in (with the size its length implies), and again at the end.
            func multipart(_ name: String, _ size: Int, _ headers: [String: String]) async throws -> HTTPResult {
                let body =
                    Array("--mp\r\nContent-Type: application/json\r\n\r\n{\"name\":\"\(name)\"}\r\n".utf8)
                    + Array("--mp\r\nContent-Type: image/png\r\n\r\n".utf8) + patternBytes(size)
                    + Array("\r\n--mp--".utf8)
                return try await client.request(
                    "POST", Storage.objects(), body: body,
                    headers: headers.merging([
                        "X-Goog-Upload-Protocol": "multipart", "Content-Type": "multipart/related; boundary=mp",
                    ]) { $1 })
            }
            let justUnder = try expectOK(await multipart("users/\(annID)/m.png", 999, asAnn))
            #expect(justUnder["size"] == "999")
            expectStorageError(try await multipart("users/\(annID)/m2.png", 1000, asAnn), 403)
            expectStorageError(try await multipart("users/\(annID)/m3.png", 10, asBob), 403)
            expectStorageError(
                try await client.request("GET", Storage.object("users/\(annID)/m2.png"), headers: asBob), 404)
            let bobStart = try await client.request(
                "POST", Storage.objects(), query: [("name", "users/\(annID)/s.png")],
                json: #"{"contentType":"image/png"}"#,
                headers: asBob.merging(["X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start"]) { $1 }
            )
            expectStorageError(bobStart, 403)

            // Reads: any signed-in user; nobody without a credential, except with the download token.
            _ = try expectOK(await client.request("GET", Storage.object(annFile), headers: asBob))
            expectStorageError(try await client.get(Storage.object(annFile)), 403)
            expectStorageError(try await client.get(Storage.object(annFile), query: [("alt", "media")]), 403)
            let token = try #require(stored["downloadTokens"]?.stringValue)
            let viaToken = try await client.get(Storage.object(annFile), query: [("alt", "media"), ("token", token)])
            #expect(viaToken.body == patternBytes(10))
            // A token that does not open the object counts as none: refused without a credential, and the rules decide
            // with one (pyrebase sends the caller's ID token as `token` too).
            let wrong = [("alt", "media"), ("token", "not-\(token)")]
            expectStorageError(try await client.get(Storage.object(annFile), query: wrong), 403)
            let wrongAsBob = try await client.request("GET", Storage.object(annFile), query: wrong, headers: asBob)
            #expect(wrongAsBob.body == patternBytes(10))
            let listed = try expectOK(
                await client.request(
                    "GET", Storage.objects(), query: [("prefix", "users/\(annID)/")], headers: asBob))
            #expect(listed["items"]?.arrayValue?.count == 2)  // the avatar and the multipart upload
            expectStorageError(
                try await client.get(Storage.objects(), query: [("prefix", "users/\(annID)/")]), 403)

            // Metadata updates and deletes: the owner only; `resource` is the stored object.
            expectStorageError(
                try await client.request(
                    "PATCH", Storage.object(annFile), json: #"{"metadata":{"locked":"yes"}}"#, headers: asBob), 403)
            _ = try expectOK(
                await client.request(
                    "PATCH", Storage.object(annFile), json: #"{"metadata":{"locked":"yes"}}"#, headers: asAnn))
            expectStorageError(try await client.request("DELETE", Storage.object(annFile), headers: asAnn), 403)
            _ = try expectOK(
                await client.request(
                    "PATCH", Storage.object(annFile), json: #"{"metadata":{"locked":null}}"#, headers: asAnn))
            expectStorageError(try await client.request("DELETE", Storage.object(annFile), headers: asBob), 403)
            #expect(try await client.request("DELETE", Storage.object(annFile), headers: asAnn).status == 204)

            // Cross-service: a Firestore document decides.
            try await client.create("members", id: annID, fields: #"{"role":{"stringValue":"editor"}}"#)
            try await client.create("members", id: bobID, fields: #"{"role":{"stringValue":"viewer"}}"#)
            _ = try expectOK(await client.upload("shared/notes.txt", [1, 2, 3], headers: asAnn))
            expectStorageError(try await client.upload("shared/notes.txt", [4], headers: asBob), 403)
            let read = try await client.request(
                "GET", Storage.object("shared/notes.txt"), query: [("alt", "media")], headers: asBob)
            #expect(read.body == [1, 2, 3])

            // SIGHUP reloads the rules file: now nobody may read.
            try writeRules(
                Self.rules.replacingOccurrences(
                    of: "allow read: if request.auth != null;", with: "allow read: if false;"),
                to: rulesPath)
            server.child.signal(SIGHUP)
            var status = 0
            for _ in 0..<200 {
                _ = try await client.upload(
                    "users/\(annID)/again.png", patternBytes(5), contentType: "image/png", headers: asAnn)
                status = try await client.request(
                    "GET", Storage.object("users/\(annID)/again.png"), headers: asBob
                ).status
                if status == 403 { break }
                try await Task.sleep(for: .milliseconds(25))
            }
            #expect(status == 403)
        }
    }

    @Test func aStorageRulesFileWithAnErrorStopsTheStart() async throws {
        let rulesPath = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bad-\(UUID().uuidString).rules"
        ).path
        defer { try? FileManager.default.removeItem(atPath: rulesPath) }
        try writeRules("service cloud.firestore { match /x { allow read; } }", to: rulesPath)
        let result = try await runHearth(
            [
                "serve", "--port", "0", "--data", NSTemporaryDirectory() + "hearth-bad-\(UUID().uuidString)",
                "--storage-rules", rulesPath,
            ])
        #expect(result.termination != .exit(0))
        #expect(result.stderr.contains("expected firebase.storage"), "\(result.stderr)")
    }
}
