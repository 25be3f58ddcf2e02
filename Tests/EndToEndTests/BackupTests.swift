import Foundation
import HearthCore
import HearthTesting
import Synchronization
import Testing

/// `hearth backup` while writes keep coming, then `hearth restore` into a fresh directory: the restored server holds
/// a prefix of the acknowledged writes — every one acknowledged before the backup began, none missing in between —
/// and the accounts (with their passwords), the tree and the stored files.
@Suite(.sqliteOnly("hearth backup and restore copy SQLite data directories"), .timeLimit(.minutes(3)))
struct BackupTests {
    @Test func backupDuringWritesRestoresAPrefix() async throws {
        let server = try await HearthProcess.start()
        let client = server.client
        _ = try await client.signUp("backup@example.com")
        try expectOK(await client.request("PUT", "/notes/kept.json", json: #""a tree leaf""#))
        let file = try await client.upload("photos/kept.bin", patternBytes(300_000))
        #expect(file.status == 200, "\(file)")
        // Another project and a named database live in files of their own; the backup carries them too.
        try expectOK(
            await client.request("PATCH", "\(FS.root("elsewhere"))/things/t", json: FS.document("{}")))
        try expectOK(
            await client.request("PATCH", "\(FS.root(database: "audit-log"))/entries/e", json: FS.document("{}")))

        // One writer, each create awaited: what is acknowledged is d0 … d(n-1).
        let acknowledged = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let writer = Task {
            var index = 0
            while !stop.load(ordering: .relaxed) {
                let created = try await client.request(
                    "POST", FS.path("load"), query: [("documentId", String(format: "d%06d", index))],
                    json: #"{"fields":{"n":{"integerValue":"\#(index)"}}}"#)
                guard created.status == 200 else { throw HarnessError("create \(index): \(created)") }
                index += 1
                acknowledged.store(index, ordering: .relaxed)
            }
        }
        while acknowledged.load(ordering: .relaxed) < 50 { try await Task.sleep(for: .milliseconds(20)) }
        let files = try TemporaryDirectory("hearth-backup")
        defer { files.remove() }
        let output = files.url.appendingPathComponent("snapshot").path
        let before = acknowledged.load(ordering: .relaxed)
        let backup = try await runHearth(["backup", "--data", server.dataDirectory.path, output])
        let after = acknowledged.load(ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(300))
        stop.store(true, ordering: .relaxed)
        try await writer.value
        #expect(backup.termination == .exit(0), "\(backup.stderr)")
        #expect(backup.stdout.contains("1 stored file"), "\(backup.stdout)")
        #expect(acknowledged.load(ordering: .relaxed) > after, "writes went on after the backup")
        try await server.stop()

        let restored = try TemporaryDirectory()
        let restore = try await runHearth(["restore", "--data", restored.path, output])
        #expect(restore.termination == .exit(0), "\(restore.stderr)")
        #expect(restore.stdout.contains("integrity check ok"))
        // Not into a directory that holds data.
        let again = try await runHearth(["restore", "--data", restored.path, output])
        #expect(again.termination == .exit(1))
        #expect(again.stderr.contains("not empty"), "\(again.stderr)")

        let second = try await HearthProcess.start(HearthProcess.Options(), dataDirectory: restored)
        let listed = try await second.client.listAll("load", pageSize: 1000)
        let numbers = listed.documents.compactMap {
            $0["fields"]?["n"]?["integerValue"]?.stringValue.flatMap { Int($0) }
        }
        #expect(numbers == Array(0..<numbers.count), "a prefix: no write missing before the last one kept")
        #expect(
            numbers.count >= before, "every write acknowledged before the backup began: \(numbers.count) < \(before)")
        #expect(numbers.count <= after + 1, "none acknowledged after it ended: \(numbers.count) > \(after)")
        try expectOK(
            await second.client.accounts(
                "signInWithPassword",
                ["email": "backup@example.com", "password": "secret-password", "returnSecureToken": true]))
        #expect(try await second.client.get("/notes/kept.json").text == #""a tree leaf""#)
        #expect(try await second.client.get("\(FS.root("elsewhere"))/things/t").status == 200)
        #expect(try await second.client.get("\(FS.root(database: "audit-log"))/entries/e").status == 200)
        let download = try await second.client.get(Storage.object("photos/kept.bin"), query: [("alt", "media")])
        #expect(download.body == patternBytes(300_000))
        // A directory a server has open is not restored into.
        let busy = try await runHearth(["restore", "--data", restored.path, output])
        #expect(busy.termination == .exit(1))
        #expect(busy.stderr.contains("in use"), "\(busy.stderr)")
        try await second.stop()
    }
}
