import Foundation
import HearthCore
import HearthPostgres
import HearthPostgresTestSupport
import HearthTesting
import Testing

/// What several nodes on one PostgreSQL database must agree on besides the data: the rules deployed at run time are
/// in force on every node (and on one started later), a rules file named at start still takes precedence, and
/// `/healthz` says whether the node can reach the database.
@Suite("State several nodes share through PostgreSQL", .serialized, TestCluster.requirement)
struct PostgresSharedStateTests {
    static let securityRules = "/emulator/v1/projects/demo:securityRules"
    static let storageRules = "/emulator/v1/projects/demo:storageRules"

    /// Document rules that let clients write `open/*` only.
    static let onlyOpen = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /open/{id} { allow read, write: if true; }
          }
        }
        """

    /// Document rules that let clients write nothing.
    static let nothing = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
          }
        }
        """

    static func node(_ url: String, _ arguments: [String] = []) async throws -> HearthProcess {
        var options = HearthProcess.Options()
        options.project = "demo"
        options.extraArguments = ["--store", url] + arguments
        return try await HearthProcess.start(options)
    }

    /// A client's (not the admin's) write of an empty document at `path`, answered with its status.
    static func write(_ node: HearthProcess, _ path: String) async throws -> Int {
        try await node.client.request("PATCH", FS.path(path), json: FS.document("{}")).status
    }

    /// Asks `probe` until it answers `wanted`, within a generous deadline; the last answer.
    static func eventually(
        _ wanted: Int, _ probe: () async throws -> Int
    ) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(60)
        var last = try await probe()
        while last != wanted, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            last = try await probe()
        }
        return last
    }

    @Test("rules deployed on one node judge requests on another, and on a node started later; --rules still wins")
    func deployedRulesAreInForceOnEveryNode() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let first = try await Self.node(url)
        let second = try await Self.node(url)
        // Development mode without rules files: open until something is deployed.
        #expect(try await Self.write(second, "rooms/r1") == 200)
        #expect(try await second.client.get("/closed.json").status == 200)

        let body = JSONValue.object(["rules": ["files": [["content": .string(Self.onlyOpen)]]]])
        try expectOK(try await first.client.request("PUT", Self.securityRules, json: body.jsonString))
        #expect(try await Self.eventually(403) { try await Self.write(second, "rooms/r2") } == 403)
        #expect(try await Self.write(second, "open/o1") == 200, "the deployed rules, not merely closed ones")
        let shown = try expectOK(try await second.client.request("GET", Self.securityRules))
        #expect(shown["rules"]?["files"]?[0]?["content"] == .string(Self.onlyOpen))

        // Tree rules put on the second node close the first's tree but for /open.
        let tree = #"{"rules":{"open":{".read":true}}}"#
        try expectOK(try await second.client.request("PUT", "/.settings/rules.json", body: Array(tree.utf8)))
        #expect(try await Self.eventually(401) { try await first.client.get("/closed.json").status } == 401)
        #expect(try await first.client.get("/open.json").status == 200)

        let storage =
            "rules_version = '2';\nservice firebase.storage {\n  match /b/{bucket}/o {\n    match /{all=**} { allow read: if true; }\n  }\n}"
        try expectOK(try await first.client.request("PUT", Self.storageRules, body: Array(storage.utf8)))
        let storageShown = { () async throws -> Int in
            let read = try await second.client.request("GET", Self.storageRules)
            return try read.json()["rules"]?["files"]?[0]?["content"] == .string(storage) ? 200 : 0
        }
        #expect(try await Self.eventually(200, storageShown) == 200, "the storage rules reach the other node")

        // A node started later starts with every deployed rule in force.
        let later = try await Self.node(url)
        #expect(try await Self.write(later, "rooms/r3") == 403)
        #expect(try await Self.write(later, "open/o2") == 200)
        #expect(try await later.client.get("/closed.json").status == 401)

        // A node given --rules keeps its file's rules for documents, at start and when others deploy again.
        let file = try TemporaryDirectory("hearth-rules-file")
        defer { file.remove() }
        let everything =
            "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /{path=**} { allow read, write: if true; }\n  }\n}\n"
        try everything.write(toFile: file.path + "/firestore.rules", atomically: true, encoding: .utf8)
        let pinned = try await Self.node(url, ["--rules", file.path + "/firestore.rules"])
        #expect(try await Self.write(pinned, "rooms/r4") == 200)
        let closing = JSONValue.object(["rules": ["files": [["content": .string(Self.nothing)]]]])
        try expectOK(try await second.client.request("PUT", Self.securityRules, json: closing.jsonString))
        #expect(try await Self.eventually(403) { try await Self.write(later, "open/o3") } == 403)
        #expect(try await Self.write(pinned, "rooms/r5") == 200, "the rules file takes precedence")
        // The tree rules, which no file names there, are the deployed ones.
        #expect(try await pinned.client.get("/closed.json").status == 401)
        _ = (first, second, later, pinned)
    }

    @Test("a file uploaded on one node is served, listed, changed and deleted through another")
    func filesAreSharedByEveryNode() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let first = try await Self.node(url)
        let second = try await Self.node(url)
        // Over 1 MiB: more than one chunk in the database.
        let bytes = patternBytes(2_500_000)
        let uploaded = try expectOK(
            await first.client.upload("photos/cat.bin", bytes, contentType: "application/x-cat"))
        let download = try await second.client.get(Storage.object("photos/cat.bin"), query: [("alt", "media")])
        #expect(download.status == 200)
        #expect(download.body == bytes, "the other node serves the same bytes")
        let metadata = try expectOK(await second.client.get(Storage.object("photos/cat.bin")))
        #expect(metadata["md5Hash"] == uploaded["md5Hash"])
        #expect(metadata["contentType"] == "application/x-cat")
        let range = try await second.client.request(
            "GET", Storage.object("photos/cat.bin"), query: [("alt", "media")],
            headers: ["Range": "bytes=1048570-1048580"])
        #expect(range.status == 206)
        #expect(range.body == Array(bytes[1_048_570...1_048_580]), "a range across two chunks")

        _ = try expectOK(await first.client.upload("photos/dog.bin", [1, 2, 3]))
        let listed = try expectOK(
            await second.client.get(Storage.objects(), query: [("prefix", "photos/"), ("delimiter", "/")]))
        #expect(
            listed["items"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["photos/cat.bin", "photos/dog.bin"])

        let patched = try await second.client.request(
            "PATCH", Storage.object("photos/dog.bin"), json: #"{"contentType":"image/dog"}"#)
        #expect(patched.status == 200, "\(patched)")
        let changed = try expectOK(await first.client.get(Storage.object("photos/dog.bin")))
        #expect(changed["contentType"] == "image/dog")
        #expect(changed["metageneration"] == "2")

        // Replaced on one node, the other serves the new bytes, never its cached old ones.
        _ = try expectOK(await second.client.upload("photos/cat.bin", [9, 9]))
        let replaced = try await first.client.get(Storage.object("photos/cat.bin"), query: [("alt", "media")])
        #expect(replaced.body == [9, 9])

        let deleted = try await first.client.request("DELETE", Storage.object("photos/cat.bin"))
        #expect(deleted.status == 204, "\(deleted)")
        #expect(try await second.client.get(Storage.object("photos/cat.bin")).status == 404)
        #expect(
            try await second.client.get(Storage.object("photos/cat.bin"), query: [("alt", "media")]).status == 404)
        _ = (first, second)
    }

    @Test("a resumable upload begun on one node is continued on a second, finished on a third, served by the first")
    func resumableUploadsAreSharedByEveryNode() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let first = try await Self.node(url)
        let second = try await Self.node(url)
        let third = try await Self.node(url)
        // Over 1 MiB in its second chunk: that chunk is more than one row in the database.
        let bytes = patternBytes(262_144 + 1_300_000 + 777, seed: 3)
        let session = try await first.client.startResumable(
            "videos/trip.bin", metadata: #"{"contentType":"video/x-trip"}"#)
        let chunk1 = try await second.client.resumable(session, "upload", offset: 0, body: Array(bytes[..<262_144]))
        #expect(chunk1.status == 200, "\(chunk1)")
        #expect(chunk1.headers["x-goog-upload-size-received"] == "262144")
        let chunk2 = try await first.client.resumable(
            session, "upload", offset: 262_144, body: Array(bytes[262_144..<1_562_144]))
        #expect(chunk2.headers["x-goog-upload-size-received"] == "1562144", "\(chunk2)")
        // A chunk sent again at an old offset, on yet another node: refused with where the session stands.
        let stale = try await third.client.resumable(session, "upload", offset: 0, body: [1, 2, 3])
        #expect(stale.status == 400, "\(stale)")
        #expect(stale.headers["x-goog-upload-size-received"] == "1562144")
        let query = try await third.client.resumable(session, "query")
        #expect(query.headers["x-goog-upload-size-received"] == "1562144", "\(query)")
        let finished = try expectOK(
            await third.client.resumable(
                session, "upload, finalize", offset: 1_562_144, body: Array(bytes[1_562_144...])))
        #expect(finished["size"] == .string(String(bytes.count)))
        #expect(finished["contentType"] == "video/x-trip")

        let download = try await first.client.get(Storage.object("videos/trip.bin"), query: [("alt", "media")])
        #expect(download.status == 200)
        #expect(download.body == bytes, "the first node serves the bytes the other two received")
        // The checksums the finishing node computed over the stored bytes are those of a one-request upload.
        let single = try expectOK(await second.client.upload("videos/single.bin", bytes))
        #expect(finished["md5Hash"] == single["md5Hash"])
        #expect(finished["crc32c"] == single["crc32c"])
        let after = try await first.client.resumable(session, "upload", offset: bytes.count, body: [1])
        #expect(after.status == 404, "a finished session takes no more chunks on any node: \(after)")

        // Cancelled on another node than the one it began on: gone on every node.
        let cancelled = try await second.client.startResumable("videos/cancelled.bin")
        #expect(try await first.client.resumable(cancelled, "upload", offset: 0, body: [1, 2]).status == 200)
        let cancel = try await third.client.resumable(cancelled, "cancel")
        #expect(cancel.headers["x-goog-upload-status"] == "cancelled", "\(cancel)")
        #expect(try await second.client.resumable(cancelled, "query").status == 404)
        #expect(try await first.client.get(Storage.object("videos/cancelled.bin")).status == 404)
        _ = (first, second, third)
    }

    @Test("of two chunks sent at one offset to two nodes at once, one is stored and the other told where to resume")
    func aChunkRaceOnTwoNodesStoresOneChunk() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let first = try await Self.node(url)
        let second = try await Self.node(url)
        let session = try await first.client.startResumable("race/one.bin")
        let id = try #require(
            URLComponents(string: session)?.queryItems?.first { $0.name == "upload_id" }?.value, "\(session)")
        let candidates = [patternBytes(300_000, seed: 1), patternBytes(200_000, seed: 2)]
        // The session row held from outside until both nodes' appends wait for it: they meet at the database.
        let held = try HeldRows(
            conninfo: url, "SELECT 1 FROM storage_upload_sessions WHERE id = $1 FOR UPDATE", [.text(id)])
        async let onFirst = first.client.resumable(session, "upload", offset: 0, body: candidates[0])
        async let onSecond = second.client.resumable(session, "upload", offset: 0, body: candidates[1])
        try held.waitForWaiters(2, like: "UPDATE storage_upload_sessions%")
        try held.release()
        let answers = try await [onFirst, onSecond]

        let winners = answers.indices.filter { answers[$0].status == 200 }
        #expect(winners.count == 1, "\(answers)")
        let winner = try #require(winners.first)
        let size = String(candidates[winner].count)
        #expect(answers[winner].headers["x-goog-upload-size-received"] == size)
        // The other is answered as a chunk from a wrong offset is: 400, active, with the size to resume from.
        let loser = answers[1 - winner]
        #expect(loser.status == 400, "\(loser)")
        #expect(loser.headers["x-goog-upload-status"] == "active")
        #expect(loser.headers["x-goog-upload-size-received"] == size)
        let finished = try expectOK(
            await second.client.resumable(session, "finalize", offset: candidates[winner].count))
        #expect(finished["size"] == .string(size))
        let download = try await first.client.get(Storage.object("race/one.bin"), query: [("alt", "media")])
        #expect(download.body == candidates[winner], "the stored chunk alone, whole")

        // The same race on a Cloud Storage JSON API session (google-cloud-storage's): both are answered 308 with the
        // range the session holds, which is the winner's chunk.
        let gcsStart = try await first.client.request(
            "POST", "/upload/storage/v1/b/\(Storage.bucket)/o", query: [("uploadType", "resumable")],
            json: #"{"name":"race/two.bin"}"#)
        let location = try #require(gcsStart.headers["location"], "\(gcsStart)")
        let gcs = String(location.dropFirst(first.client.baseURL.count))
        let gcsID = try #require(URLComponents(string: gcs)?.queryItems?.first { $0.name == "upload_id" }?.value)
        let heldAgain = try HeldRows(
            conninfo: url, "SELECT 1 FROM storage_upload_sessions WHERE id = $1 FOR UPDATE", [.text(gcsID)])
        func put(_ node: HearthProcess, _ bytes: [UInt8]) async throws -> HTTPResult {
            try await node.client.request(
                "PUT", gcs, body: bytes, headers: ["Content-Range": "bytes 0-\(bytes.count - 1)/*"])
        }
        async let gcsOnFirst = put(first, candidates[0])
        async let gcsOnSecond = put(second, candidates[1])
        try heldAgain.waitForWaiters(2, like: "UPDATE storage_upload_sessions%")
        try heldAgain.release()
        let gcsAnswers = try await [gcsOnFirst, gcsOnSecond]
        #expect(gcsAnswers.map(\.status) == [308, 308], "\(gcsAnswers)")
        let ranges = Set(gcsAnswers.map { $0.headers["range"] ?? "" })
        #expect(ranges.count == 1, "both told the one size the session has: \(gcsAnswers)")
        let gcsWinner = try #require(
            candidates.firstIndex { ranges == ["bytes=0-\($0.count - 1)"] }, "the range is one chunk's: \(ranges)")
        let total = candidates[gcsWinner].count
        let gcsFinished = try expectOK(
            await second.client.request("PUT", gcs, body: [], headers: ["Content-Range": "bytes */\(total)"]))
        #expect(gcsFinished["size"] == .string(String(total)))
        let gcsDownload = try await first.client.get(Storage.object("race/two.bin"), query: [("alt", "media")])
        #expect(gcsDownload.body == candidates[gcsWinner])
        _ = (first, second)
    }

    @Test("/healthz answers 503 UNAVAILABLE while PostgreSQL is stopped, and ok again once it is started")
    func healthFollowsTheDatabase() async throws {
        // A cluster of its own: this test stops it.
        let cluster = try TestCluster()
        defer { cluster.stop() }
        let node = try await Self.node(try cluster.createDatabaseURL())
        let up = try await node.client.get("/healthz")
        #expect(up.status == 200, "\(up)")
        #expect(try up.json()["status"] == .string("ok"), "\(up)")

        try cluster.stopServer()
        let down = try await node.client.get("/healthz")
        #expect(down.status == 503, "\(down)")
        #expect(try down.json()["status"] == .string("unavailable"), "\(down)")
        #expect(try down.json()["error"]?.stringValue?.contains("PostgreSQL") == true, "\(down)")
        let document = try await node.client.get(FS.path("rooms/r1"))
        #expect(document.status == 503, "a request then fails alike: \(document)")

        try cluster.startServer()
        #expect(try await Self.eventually(200) { try await node.client.get("/healthz").status } == 200)
        let again = try await node.client.get("/healthz")
        #expect(try again.json()["status"] == .string("ok"), "\(again)")
        _ = try await node.stop()
    }
}
