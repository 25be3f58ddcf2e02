import Foundation
import HearthCore
import HearthTesting
import Testing

/// A data directory on a disk that fills up (a 64 MiB tmpfs, mounted for the test, so root only — CI runs as root):
/// writes are refused with 503 `UNAVAILABLE`, deletes still go through in the space `hearth.reserve` gives up, and
/// once deleted files have made room the reserve is put back and writes are accepted again.
@Suite(
    .enabled(if: getuid() == 0, "mounting a small filesystem needs root"),
    .sqliteOnly("the space reserved for deletes on a full disk is a file beside hearth.sqlite"), .timeLimit(.minutes(3))
)
struct FullDiskTests {
    @Test func deletesWorkOnAFullDiskAndWritesComeBack() async throws {
        let directory = try TemporaryDirectory("hearth-full")
        try mountTmpfs(at: directory.path, size: "64m")
        defer {
            _ = run("/usr/bin/umount", ["-l", directory.path])
            directory.remove()
        }
        let server = try await HearthProcess.start(dataDirectory: directory)
        let client = server.client
        #expect(FileManager.default.fileExists(atPath: directory.path + "/hearth.reserve"))

        // A subtree of 2 MB, whose delete rewrites many pages.
        let note = String(repeating: "n", count: 10_000)
        let notes = (0..<200).map { #""n\#($0)":"\#(note)""# }.joined(separator: ",")
        let tree = try await client.request("PUT", "/notes.json", json: "{\(notes)}")
        #expect(tree.status == 200, "\(tree)")
        // Files fill most of the disk.
        var files: [String] = []
        for index in 0..<40 {
            let answer = try await client.upload("fill-\(index).bin", patternBytes(4 << 20))
            guard answer.status == 200 else { break }
            files.append("fill-\(index).bin")
        }
        #expect(files.count >= 5, "some files must fit")
        // Documents fill the rest, until the database cannot write: 503, nothing stored.
        let pad = String(repeating: "p", count: 200_000)
        var created: [String] = []
        var refused: HTTPResult?
        for index in 0..<400 {
            let answer = try await client.request(
                "POST", FS.path("docs"), query: [("documentId", "d\(index)")],
                json: #"{"fields":{"pad":{"stringValue":"\#(pad)"}}}"#)
            if answer.status != 200 {
                refused = answer
                break
            }
            created.append("d\(index)")
        }
        let full = try #require(refused, "the disk never filled")
        #expect(full.status == 503, "\(full)")
        #expect(try full.json()["error"]?["status"] == .string("UNAVAILABLE"))
        #expect(try full.json()["error"]?["message"]?.stringValue?.contains("disk is full") == true, "\(full)")
        let refusedID = "d\(created.count)"
        #expect(try await client.document("docs/\(refusedID)").status == 404, "a refused create stores nothing")

        // Deletes still go through: in the tree, of a document, of a file.
        let treeDelete = try await client.request("DELETE", "/notes.json")
        #expect(treeDelete.status == 200, "a tree delete on a full disk: \(treeDelete)")
        #expect(try await client.get("/notes.json").body == Array("null".utf8))
        let last = try #require(created.last)
        let deleted = try await client.request("DELETE", FS.path("docs/\(last)"))
        #expect(deleted.status == 200, "a delete on a full disk: \(deleted)")
        #expect(try await client.document("docs/\(last)").status == 404)
        // While the reserve is given up, other writes are refused, so its room goes to deletes.
        let meanwhile = try await client.request(
            "POST", FS.path("docs"), query: [("documentId", "meanwhile")], json: #"{"fields":{}}"#)
        #expect(meanwhile.status == 503, "\(meanwhile)")
        for name in files {
            let removed = try await client.request("DELETE", Storage.object(name))
            #expect(removed.status == 204 || removed.status == 200, "a file delete on a full disk: \(removed)")
        }

        // With room again the reserve comes back and writes are accepted.
        var accepted = false
        for _ in 0..<50 {
            let again = try await client.request(
                "POST", FS.path("docs"), query: [("documentId", "after")], json: #"{"fields":{}}"#)
            if again.status == 200 {
                accepted = true
                break
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(accepted, "writes must be accepted once deletes made room")
        #expect(FileManager.default.fileExists(atPath: directory.path + "/hearth.reserve"))
        // The store reports both turns through the server's log.
        #expect(server.stderr.contains("gave up the disk reserve for deletes"), "\(server.stderr.suffix(2000))")
        #expect(server.stderr.contains("disk reserve restored"))
        try await server.stop()
    }

    private func mountTmpfs(at path: String, size: String) throws {
        let status = run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path])
        guard status == 0 else { throw HarnessError("mount tmpfs on \(path) failed: \(status)") }
    }

    @discardableResult
    private func run(_ executable: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
