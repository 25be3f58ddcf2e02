import Foundation
import HearthCore
import HearthTesting
import Testing

/// Uploads that are resumed, interrupted, too large or cut off by a crash, on the real binary.
@Suite(.sharedHearth)
struct StorageUploadTests {
    @Test func resumableUploadInterruptedAndResumed() async throws {
        let server = try SharedHearth.server
        let client = server.client
        let name = Storage.unique("resumable") + ".bin"
        let bytes = patternBytes(600_000, seed: 3)
        let url = try await client.startResumable(
            name, metadata: #"{"contentType":"application/x-test","metadata":{"a":"1"}}"#)
        let first = try await client.resumable(url, "upload", offset: 0, body: Array(bytes[..<262_144]))
        #expect(first.status == 200)
        #expect(first.headers["x-goog-upload-status"] == "active")
        #expect(first.headers["x-goog-upload-size-received"] == "262144")

        // The next chunk stops mid-way: the connection drops after part of it.
        let path = url
        let socket = try RawSocket(port: server.port)
        try socket.send(
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Goog-Upload-Protocol: resumable\r\n"
                + "X-Goog-Upload-Command: upload\r\nX-Goog-Upload-Offset: 262144\r\nContent-Length: 200000\r\n\r\n")
        try socket.send(Array(bytes[262_144..<300_000]))
        socket.shutdownWrite()
        _ = socket.readAll()

        // The session still has only the first chunk, and says so.
        let query = try await pollQuery(client, url, until: "262144")
        #expect(query.headers["x-goog-upload-size-received"] == "262144")
        // A chunk from the wrong offset is refused with where to resume.
        let wrong = try await client.resumable(url, "upload", offset: 300_000, body: [1, 2, 3])
        #expect(wrong.status == 400)
        #expect(wrong.headers["x-goog-upload-size-received"] == "262144")

        let last = try await client.resumable(url, "upload, finalize", offset: 262_144, body: Array(bytes[262_144...]))
        let metadata = try expectOK(last)
        #expect(last.headers["x-goog-upload-status"] == "final")
        #expect(metadata["size"] == "600000")
        #expect(metadata["contentType"] == "application/x-test")
        #expect(metadata["metadata"]?["a"] == "1")
        let download = try await client.get(Storage.object(name), query: [("alt", "media")])
        #expect(download.body == bytes)
        // The finished session is gone.
        expectStorageError(try await client.resumable(url, "query"), 404)
    }

    @Test func cancelledResumableUploadLeavesNothing() async throws {
        let server = try SharedHearth.server
        let name = Storage.unique("cancelled")
        let url = try await server.client.startResumable(name)
        _ = try await server.client.resumable(url, "upload", offset: 0, body: patternBytes(1000))
        let cancelled = try await server.client.resumable(url, "cancel")
        #expect(cancelled.status == 200)
        #expect(cancelled.headers["x-goog-upload-status"] == "cancelled")
        expectStorageError(try await server.client.resumable(url, "upload", offset: 1000, body: [1]), 404)
        expectStorageError(try await server.client.get(Storage.object(name)), 404)
    }

    @Test func mediaUploadStoppingMidWayStoresNothing() async throws {
        let server = try SharedHearth.server
        let name = Storage.unique("cut")
        let socket = try RawSocket(port: server.port)
        try socket.send(
            "POST \(Storage.objects())?name=\(name) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n")
        try socket.send(patternBytes(300_000))
        socket.shutdownWrite()
        _ = socket.readAll()
        // The body never completed (a Content-Length larger than what was sent), so nothing is visible or kept.
        try await waitFor { Storage.files(server).tmp.isEmpty }
        expectStorageError(try await server.client.get(Storage.object(name)), 404)
    }

    private func pollQuery(_ client: HTTPClient, _ url: String, until received: String) async throws -> HTTPResult {
        var last = try await client.resumable(url, "query")
        for _ in 0..<200 where last.headers["x-goog-upload-size-received"] != received {
            try await Task.sleep(for: .milliseconds(25))
            last = try await client.resumable(url, "query")
        }
        return last
    }
}

/// Polls `condition` for up to 20 s.
func waitFor(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    for _ in 0..<800 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(25))
    }
    Issue.record("condition never held", sourceLocation: sourceLocation)
}

/// Servers of their own: limits, a crash, access outside development mode, memory during a 1 GiB upload.
@Suite struct StorageServerTests {
    @Test func maximumObjectSizeIsEnforced() async throws {
        var options = HearthProcess.Options()
        options.extraArguments = ["--storage-max-object-bytes", "1000"]
        try await withHearth(options) { server in
            _ = try expectOK(await server.client.upload("fits", patternBytes(1000)))
            // Refused from the declared length, before the body is read.
            let socket = try RawSocket(port: server.port)
            try socket.send(
                "POST \(Storage.objects())?name=big HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000000000\r\n\r\n")
            let reply = socket.readAll()
            #expect(reply.status == 413, "\(reply.text)")
            // Chunked, so only the bytes tell.
            let chunked = try RawSocket(port: server.port)
            let chunk = String(repeating: "x", count: 800)
            try chunked.send(
                "POST \(Storage.objects())?name=big2 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n"
                    + "320\r\n\(chunk)\r\n320\r\n\(chunk)\r\n0\r\n\r\n")
            #expect(chunked.readAll().status == 413)
            let start = try await server.client.request(
                "POST", Storage.objects(), query: [("name", "big3")], json: "{}",
                headers: [
                    "X-Goog-Upload-Protocol": "resumable", "X-Goog-Upload-Command": "start",
                    "X-Goog-Upload-Header-Content-Length": "1001",
                ])
            expectStorageError(start, 413)
            expectStorageError(try await server.client.get(Storage.object("big")), 404)
            expectStorageError(try await server.client.get(Storage.object("big2")), 404)
            #expect(Storage.files(server).tmp.isEmpty)
            #expect(Storage.files(server).blobs.count == 1)
        }
    }

    /// Bytes live exactly as long as an object names them: replaced, refused and deleted uploads leave no file.
    @Test func bytesLeaveWithTheirObject() async throws {
        try await withHearth { server in
            let client = server.client
            _ = try expectOK(await client.upload("a", patternBytes(3000)))
            _ = try expectOK(await client.upload("a", patternBytes(4000)))
            #expect(Storage.files(server).blobs.count == 1)
            let multipart = ["X-Goog-Upload-Protocol": "multipart", "Content-Type": "multipart/related; boundary=b"]
            let malformed = "--b\r\nContent-Type: application/json\r\n\r\n{\"name\":\"m\"}\r\n--b\r\n\r\nxyz"
            expectStorageError(
                try await client.request("POST", Storage.objects(), body: Array(malformed.utf8), headers: multipart),
                400)
            expectStorageError(try await client.upload("bad\rname", [1]), 400)
            #expect(Storage.files(server).blobs.count == 1)
            #expect(try await client.request("DELETE", Storage.object("a")).status == 204)
            #expect(Storage.files(server).blobs.isEmpty)
            #expect(Storage.files(server).tmp.isEmpty)
        }
    }

    /// Multipart uploads stream like media ones: a file past the 10 MiB request body limit is stored whole, and
    /// malformed bodies are refused with nothing left on disk.
    @Test func multipartUploadsStreamPastTheBodyLimit() async throws {
        try await withHearth { server in
            let client = server.client
            let headers = ["X-Goog-Upload-Protocol": "multipart", "Content-Type": "multipart/related; boundary=bnd"]
            func body(_ name: String, _ file: [UInt8], tail: String = "\r\n--bnd--") -> [UInt8] {
                Array("--bnd\r\nContent-Type: application/json\r\n\r\n{\"name\":\"\(name)\"}\r\n".utf8)
                    + Array("--bnd\r\nContent-Type: application/octet-stream\r\n\r\n".utf8) + file + Array(tail.utf8)
            }
            let file = patternBytes(11_000_000, seed: 9)
            let stored = try expectOK(
                await client.request("POST", Storage.objects(), body: body("big", file), headers: headers))
            #expect(stored["size"] == "11000000")
            #expect(try await client.get(Storage.object("big"), query: [("alt", "media")]).body == file)
            // The Cloud Storage JSON API's multipart upload streams too.
            let viaGCS = try await client.request(
                "POST", "/upload/storage/v1/b/\(Storage.bucket)/o", query: [("uploadType", "multipart")],
                body: body("big-gcs", file), headers: ["Content-Type": "multipart/related; boundary=bnd"])
            #expect(try expectOK(viaGCS)["size"] == "11000000")

            let blobsBefore = Storage.files(server).blobs.count
            let cutShort = body("cut", file, tail: "\r\n--bn")
            expectStorageError(
                try await client.request("POST", Storage.objects(), body: cutShort, headers: headers), 400)
            let threeParts = body("three", file, tail: "\r\n--bnd\r\n\r\nmore\r\n--bnd--")
            expectStorageError(
                try await client.request("POST", Storage.objects(), body: threeParts, headers: headers), 400)
            let hugeMetadata =
                Array("--bnd\r\n\r\n{\"name\":\"".utf8) + Array(repeating: UInt8(ascii: "n"), count: 70_000)
            expectStorageError(
                try await client.request("POST", Storage.objects(), body: hugeMetadata, headers: headers), 400)
            expectStorageError(try await client.get(Storage.object("cut")), 404)
            expectStorageError(try await client.get(Storage.object("three")), 404)
            #expect(Storage.files(server).blobs.count == blobsBefore)
            #expect(Storage.files(server).tmp.isEmpty)
        }
    }

    @Test func killNineMidUploadLeavesNeitherMetadataNorBytes() async throws {
        let server = try await HearthProcess.start()
        let socket = try RawSocket(port: server.port)
        try socket.send(
            "POST \(Storage.objects())?name=crash HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 50000000\r\n\r\n")
        try socket.send(patternBytes(4_000_000))
        try await waitFor { !Storage.files(server).tmp.isEmpty }
        try await server.kill9()
        // The partial file is there after the crash, but no row names it …
        #expect(Storage.files(server).blobs.isEmpty)
        let restarted = try await server.restart()
        // … and the restart removes it.
        #expect(Storage.files(restarted).tmp.isEmpty)
        #expect(Storage.files(restarted).blobs.isEmpty)
        expectStorageError(try await restarted.client.get(Storage.object("crash")), 404)
        let listing = try expectOK(await restarted.client.get(Storage.objects()))
        #expect(listing["items"] == .array([]))
        try await restarted.stop()
    }

    @Test func outsideDevModeOnlyTheAdminOrATokenGetsIn() async throws {
        let adminKey = "storage-admin-\(UUID().uuidString)"
        var options = HearthProcess.Options()
        options.dev = false
        options.environment = ["HEARTH_ADMIN_KEY": adminKey]
        try await withHearth(options) { server in
            let client = server.client
            expectStorageError(try await client.upload("x", [1]), 403)
            let admin = ["Authorization": "Bearer \(adminKey)"]
            let stored = try expectOK(await client.upload("x", [1, 2], headers: admin))
            let token = try #require(stored["downloadTokens"]?.stringValue)
            expectStorageError(try await client.get(Storage.object("x")), 403)
            // A download token opens the bytes without any credential, as Firebase's download URLs do.
            let download = try await client.get(Storage.object("x"), query: [("alt", "media"), ("token", token)])
            #expect(download.body == [1, 2])
            // A signed-in user without rules is still refused, whichever scheme names the token.
            let user = try await client.signUp(Accounts.uniqueEmail("storage"))
            let idToken = try #require(user["idToken"]?.stringValue)
            let asUser = try await client.request(
                "GET", Storage.object("x"), headers: ["Authorization": "Firebase \(idToken)"])
            expectStorageError(asUser, 403)
            let forged = try await client.request(
                "GET", Storage.object("x"), headers: ["Authorization": "Firebase not-a-token"])
            expectStorageError(forged, 401)
            // Only the project's default buckets exist.
            _ = try expectOK(
                await client.upload("y", [3], bucket: "demo.firebasestorage.app", headers: admin))
            expectStorageError(try await client.upload("y", [3], bucket: "other-bucket", headers: admin), 404)
        }
    }

    /// A write the disk refuses (here a file-size limit set on the running server with `prlimit`, which fails writes
    /// as a full disk does) is a clear 429 and leaves nothing half-written; smaller files still go in.
    @Test func fullDiskIsAClearErrorAndStoresNothing() async throws {
        try await withHearth { server in
            let limit = Process()
            limit.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            limit.arguments = ["--pid", String(server.child.pid), "--fsize=2000000"]
            try limit.run()
            limit.waitUntilExit()
            #expect(limit.terminationStatus == 0)
            let refused = try await server.client.upload("huge.bin", patternBytes(5_000_000))
            expectStorageError(refused, 429)
            #expect((try? refused.json())?["error"]?["status"] == "RESOURCE_EXHAUSTED")
            #expect(Storage.files(server).tmp.isEmpty)
            #expect(Storage.files(server).blobs.isEmpty)
            expectStorageError(try await server.client.get(Storage.object("huge.bin")), 404)
            _ = try expectOK(await server.client.upload("small.bin", patternBytes(1000)))
        }
    }

    @Test func cloudStorageJSONAPINeedsTheAdminCredentialOutsideDevMode() async throws {
        let adminKey = "gcs-admin-\(UUID().uuidString)"
        var options = HearthProcess.Options()
        options.dev = false
        options.environment = ["HEARTH_ADMIN_KEY": adminKey]
        try await withHearth(options) { server in
            let client = server.client
            let upload = "/upload/storage/v1/b/demo.appspot.com/o"
            let refused = try await client.request(
                "POST", upload, query: [("uploadType", "media"), ("name", "a.txt")], body: [1, 2, 3],
                headers: ["Content-Type": "text/plain"])
            expectStorageError(refused, 403)
            let admin = ["Authorization": "Bearer \(adminKey)", "Content-Type": "text/plain"]
            let stored = try expectOK(
                await client.request(
                    "POST", upload, query: [("uploadType", "media"), ("name", "a.txt")], body: [1, 2, 3],
                    headers: admin))
            #expect(stored["kind"] == "storage#object")
            #expect(stored["size"] == "3")
            let download = try await client.request(
                "GET", "/download/storage/v1/b/demo.appspot.com/o/a.txt", query: [("alt", "media")], headers: admin)
            #expect(download.body == [1, 2, 3])
            #expect(download.headers["x-goog-hash"]?.contains("md5=") == true)
            expectStorageError(try await client.get("/storage/v1/b/demo.appspot.com/o/a.txt"), 403)
            // A chunk from the wrong offset is answered with where the session stands.
            let started = try await client.request(
                "POST", upload, query: [("uploadType", "resumable")], json: #"{"name":"r.bin"}"#, headers: admin)
            let location = try #require(started.headers["location"])
            let session = String(location.dropFirst(client.baseURL.count))
            let wrong = try await client.request(
                "PUT", session, body: [1],
                headers: ["Authorization": "Bearer \(adminKey)", "Content-Range": "bytes 5-5/6"])
            #expect(wrong.status == 308)
        }
    }

    /// A 1 GiB upload streams to disk: the server's resident memory stays within a few MiB of where it started.
    @Test func gigabyteUploadKeepsMemoryFlat() async throws {
        try await withHearth { server in
            let before = residentKiB(server.child.pid)
            var peak = before
            let socket = try RawSocket(port: server.port, timeout: 300)
            let size = 1 << 30
            try socket.send(
                "POST \(Storage.objects())?name=gig HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(size)\r\n\r\n"
            )
            let piece = patternBytes(1 << 20)
            for index in 0..<(size >> 20) {
                try sendAll(piece, on: socket.fd)
                if index % 64 == 0 { peak = max(peak, residentKiB(server.child.pid)) }
            }
            let reply = socket.readAll()
            #expect(reply.status == 200, "\(reply.text.prefix(300))")
            peak = max(peak, residentKiB(server.child.pid))
            let growth = peak - before
            print("storage 1 GiB upload: RSS before \(before) KiB, peak \(peak) KiB, growth \(growth) KiB")
            #expect(growth < 16 * 1024, "RSS grew by \(growth) KiB during a 1 GiB upload")
            let metadata = try expectOK(await server.client.get(Storage.object("gig")))
            #expect(metadata["size"] == .string(String(size)))
        }
    }
}

/// Writes all of `bytes` to `fd` from one buffer pointer (RawSocket's slice-per-call loop is slow for a gigabyte in a
/// debug build).
func sendAll(_ bytes: [UInt8], on fd: Int32) throws {
    try bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            guard written > 0 else { throw HarnessError("send() failed: errno \(errno)") }
            offset += written
        }
    }
}

/// The resident set of `pid` in KiB, from /proc.
func residentKiB(_ pid: Int32) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}
