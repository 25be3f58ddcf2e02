import Foundation
import HearthCore
import HearthTesting
import Testing

/// Firebase Storage v0 on the real binary: uploads, metadata, downloads (ranges, etags, tokens), listing, deletes.
@Suite(.sharedHearth)
struct StorageObjectTests {
    @Test func mediaUploadThenMetadataAndDownload() async throws {
        let client = try SharedHearth.server.client
        let name = Storage.unique("photos/cat") + ".txt"
        let uploaded = try await client.upload(name, Array("hello world".utf8), contentType: "text/plain")
        let metadata = try expectOK(uploaded)
        #expect(metadata["name"] == .string(name))
        #expect(metadata["bucket"] == .string(Storage.bucket))
        #expect(metadata["size"] == "11")
        #expect(metadata["contentType"] == "text/plain")
        #expect(metadata["md5Hash"] == "XrY7u+Ae7tCTyyK7j1rNww==")
        #expect(metadata["crc32c"] == "yZRlqg==")
        #expect(metadata["metageneration"] == "1")
        for field in ["generation", "etag", "timeCreated", "updated", "downloadTokens"] {
            #expect(metadata[field]?.stringValue?.isEmpty == false, "\(field) in \(metadata)")
        }
        let fetched = try expectOK(await client.get(Storage.object(name)))
        #expect(fetched == metadata)
        let download = try await client.get(Storage.object(name), query: [("alt", "media")])
        #expect(download.status == 200)
        #expect(download.text == "hello world")
        #expect(download.headers["content-type"] == "text/plain")
        #expect(download.headers["content-length"] == "11")
        // Served on the console's origin, uploaded bytes are sandboxed: a page among them runs in an origin of its own.
        #expect(download.headers["content-security-policy"]?.hasPrefix("sandbox ") == true)
        #expect(download.headers["content-security-policy"]?.contains("allow-same-origin") == false)
    }

    @Test func rangeReadsAnd416() async throws {
        let client = try SharedHearth.server.client
        let name = Storage.unique("range")
        let bytes = patternBytes(100_000)
        _ = try expectOK(await client.upload(name, bytes))
        let middle = try await client.request(
            "GET", Storage.object(name), query: [("alt", "media")], headers: ["Range": "bytes=1000-1999"])
        #expect(middle.status == 206)
        #expect(middle.headers["content-range"] == "bytes 1000-1999/100000")
        #expect(middle.body == Array(bytes[1000..<2000]))
        let suffix = try await client.request(
            "GET", Storage.object(name), query: [("alt", "media")], headers: ["Range": "bytes=-10"])
        #expect(suffix.body == Array(bytes[99_990...]))
        let outside = try await client.request(
            "GET", Storage.object(name), query: [("alt", "media")], headers: ["Range": "bytes=100000-"])
        #expect(outside.status == 416)
        #expect(outside.headers["content-range"] == "bytes */100000")
    }

    @Test func conditionalGetAndServedHeadersFollowTheMetadata() async throws {
        let client = try SharedHearth.server.client
        let name = Storage.unique("served")
        let first = try expectOK(await client.upload(name, [1, 2, 3]))
        let etag = try #require(first["etag"]?.stringValue)
        let unchanged = try await client.request(
            "GET", Storage.object(name), query: [("alt", "media")], headers: ["If-None-Match": "\"\(etag)\""])
        #expect(unchanged.status == 304)
        #expect(unchanged.body.isEmpty)
        let patched = try expectOK(
            await client.request(
                "PATCH", Storage.object(name),
                json: #"""
                    {"contentType":"image/png","cacheControl":"public, max-age=60",
                     "contentDisposition":"attachment; filename=\"x.png\"","metadata":{"owner":"ann"}}
                    """#))
        #expect(patched["metageneration"] == "2")
        #expect(patched["metadata"]?["owner"] == "ann")
        #expect(patched["generation"] == first["generation"])
        // The metadata changed, so the old etag no longer matches.
        let changed = try await client.request(
            "GET", Storage.object(name), query: [("alt", "media")], headers: ["If-None-Match": "\"\(etag)\""])
        #expect(changed.status == 200)
        #expect(changed.headers["content-type"] == "image/png")
        #expect(changed.headers["cache-control"] == "public, max-age=60")
        #expect(changed.headers["content-disposition"] == "attachment; filename=\"x.png\"")
        let bad = try await client.request("PATCH", Storage.object(name), json: #"{"contentType": 5}"#)
        expectStorageError(bad, 400)
    }

    @Test func downloadTokensCanBeCreatedAndRevoked() async throws {
        let client = try SharedHearth.server.client
        let name = Storage.unique("tokens")
        let first = try expectOK(await client.upload(name, [9, 9]))
        let original = try #require(first["downloadTokens"]?.stringValue)
        let created = try expectOK(
            await client.request("POST", Storage.object(name), query: [("create_token", "true")], body: []))
        let tokens = try #require(created["downloadTokens"]?.stringValue).split(separator: ",").map(String.init)
        #expect(tokens.count == 2 && tokens[0] == original)
        let deleted = try expectOK(
            await client.request("POST", Storage.object(name), query: [("delete_token", original)], body: []))
        #expect(deleted["downloadTokens"]?.stringValue == tokens[1])
        // A revoked token opens nothing by itself: the request is judged as one without a token (this dev server's
        // storage rules are open; StorageRulesTests checks it under rules).
        let revoked = try await client.get(Storage.object(name), query: [("alt", "media"), ("token", original)])
        #expect(revoked.status == 200)
        let valid = try await client.get(Storage.object(name), query: [("alt", "media"), ("token", tokens[1])])
        #expect(valid.body == [9, 9])
    }

    @Test func listingWithPrefixDelimiterAndPages() async throws {
        let client = try SharedHearth.server.client
        let root = Storage.unique("list") + "/"
        for name in ["a.txt", "b.txt", "sub/c.txt", "sub/deeper/d.txt", "z.txt"] {
            _ = try expectOK(await client.upload(root + name, [0]))
        }
        let top = try expectOK(
            await client.get(Storage.objects(), query: [("prefix", root), ("delimiter", "/")]))
        #expect(
            top["items"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == [
                root + "a.txt", root + "b.txt", root + "z.txt",
            ])
        #expect(top["prefixes"] == .array([.string(root + "sub/")]))
        var names: [String] = []
        var token: String?
        var pages = 0
        repeat {
            var query = [("prefix", root), ("maxResults", "2")]
            if let token { query.append(("pageToken", token)) }
            let page = try expectOK(await client.get(Storage.objects(), query: query))
            names += page["items"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            token = page["nextPageToken"]?.stringValue
            pages += 1
        } while token != nil && pages < 10
        #expect(names.count == 5)
        #expect(pages == 3)
        expectStorageError(try await client.get(Storage.objects(), query: [("maxResults", "zero")]), 400)
    }

    @Test func deleteRemovesTheObject() async throws {
        let server = try SharedHearth.server
        let name = Storage.unique("deleted")
        let metadata = try expectOK(await server.client.upload(name, patternBytes(5000)))
        let deleted = try await server.client.request("DELETE", Storage.object(name))
        #expect(deleted.status == 204)
        expectStorageError(try await server.client.get(Storage.object(name)), 404)
        expectStorageError(
            try await server.client.get(
                Storage.object(name),
                query: [("alt", "media"), ("token", metadata["downloadTokens"]?.stringValue ?? "")]), 404)
        expectStorageError(try await server.client.request("DELETE", Storage.object(name)), 404)
    }

    @Test func multipartUploadAndMalformedMultipart() async throws {
        let server = try SharedHearth.server
        let name = Storage.unique("multi")
        let body =
            "--B0UND\r\nContent-Type: application/json; charset=utf-8\r\n\r\n"
            + #"{"name":"\#(name)","metadata":{"k":"v"}}"# + "\r\n--B0UND\r\nContent-Type: text/csv\r\n\r\n"
            + "a,b\r\n1,2" + "\r\n--B0UND--\r\n"
        let headers = ["X-Goog-Upload-Protocol": "multipart", "Content-Type": "multipart/related; boundary=B0UND"]
        let uploaded = try expectOK(
            try await server.client.request("POST", Storage.objects(), body: Array(body.utf8), headers: headers))
        #expect(uploaded["contentType"] == "text/csv")
        #expect(uploaded["metadata"]?["k"] == "v")
        #expect(uploaded["size"] == "8")
        let download = try await server.client.get(Storage.object(name), query: [("alt", "media")])
        #expect(download.text == "a,b\r\n1,2")

        let truncated = String(body.dropLast(12))
        expectStorageError(
            try await server.client.request("POST", Storage.objects(), body: Array(truncated.utf8), headers: headers),
            400)
        var noBoundary = headers
        noBoundary["Content-Type"] = "multipart/related"
        expectStorageError(
            try await server.client.request("POST", Storage.objects(), body: Array(body.utf8), headers: noBoundary), 400
        )
        expectStorageError(try await server.client.get(Storage.objects() + "/x", query: [("alt", "media")]), 404)
    }

    @Test func badNamesAreRefusedAndTraversalStaysInside() async throws {
        let server = try SharedHearth.server
        expectStorageError(try await server.client.upload("line\nbreak", [1]), 400)
        expectStorageError(try await server.client.upload(String(repeating: "n", count: 1025), [1]), 400)
        expectStorageError(
            try await server.client.request("POST", Storage.objects(), body: [1], headers: ["Content-Type": "a/b"]), 400
        )
        // `..` and an encoded slash are only characters of a name: stored and served under that name, nothing
        // written outside the storage directory.
        let sneaky = "../../" + Storage.unique("escape")
        let outside = server.dataDirectory.path + "/" + String(sneaky.dropFirst(6))
        _ = try expectOK(await server.client.upload(sneaky, [7]))
        let encoded = try await server.client.get(
            Storage.objects() + "/..%2F..%2F" + String(sneaky.dropFirst(6)), query: [("alt", "media")])
        #expect(encoded.body == [7])
        #expect(!FileManager.default.fileExists(atPath: outside))
        let entries = try FileManager.default.contentsOfDirectory(atPath: server.dataDirectory.path)
        #expect(!entries.contains { $0.hasPrefix("escape") })
    }
}
