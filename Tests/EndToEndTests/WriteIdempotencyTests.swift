import Foundation
import HearthCore
import HearthTesting
import Testing

/// `X-Hearth-Write-Id`: a write sent again with the key of one already applied is answered with the first answer and
/// not applied twice — for tree writes and for `:commit`.
@Suite("Write idempotency keys", .sharedHearth, .timeLimit(.minutes(2)))
struct WriteIdempotencyTests {
    let client: HTTPClient
    init() throws { client = try SharedHearth.server.client }

    @Test("a tree increment resent with the same key counts once and gets the first answer")
    func treeIncrementResent() async throws {
        let root = Tree.unique("idem")
        let key = ["X-Hearth-Write-Id": "tree-\(UUID().uuidString)"]
        let body = #"{".sv":{"increment":5}}"#
        let first = try expectOK(await client.tree("PUT", "\(root)/n", body, headers: key))
        let again = try expectOK(await client.tree("PUT", "\(root)/n", body, headers: key))
        #expect(first == .integer(5))
        #expect(again == first)
        #expect(try await client.treeValue("\(root)/n") == .integer(5))

        let patchKey = ["X-Hearth-Write-Id": "patch-\(UUID().uuidString)"]
        let patch = #"{"n":{".sv":{"increment":1}},"m":1}"#
        let patched = try expectOK(await client.tree("PATCH", root, patch, headers: patchKey))
        #expect(try expectOK(await client.tree("PATCH", root, patch, headers: patchKey)) == patched)
        #expect(try await client.treeValue("\(root)/n") == .integer(6))

        // Without a key, every request is applied.
        _ = try expectOK(await client.tree("PUT", "\(root)/n", body))
        _ = try expectOK(await client.tree("PUT", "\(root)/n", body))
        #expect(try await client.treeValue("\(root)/n") == .integer(16))
    }

    @Test("a :commit with a transform resent with the same key is applied once and answers the same commit time")
    func commitResent() async throws {
        let collection = FS.unique("idem")
        let name = FS.name("\(collection)/counter")
        let writes =
            #"[{"transform":{"document":"\#(name)","fieldTransforms":[{"fieldPath":"n","increment":{"integerValue":"2"}}]}}]"#
        let key = ["X-Hearth-Write-Id": "commit-\(UUID().uuidString)"]
        let path = "\(FS.root()):commit"
        let first = try expectOK(
            await client.request("POST", path, json: #"{"writes":\#(writes)}"#, headers: key))
        let again = try expectOK(
            await client.request("POST", path, json: #"{"writes":\#(writes)}"#, headers: key))
        #expect(first["commitTime"] != nil)
        #expect(again == first)
        #expect(try await client.fields("\(collection)/counter")["n"] == FS.json(#"{"integerValue":"2"}"#))
    }

    @Test("a malformed key is refused with INVALID_ARGUMENT and nothing is written")
    func malformedKey() async throws {
        let root = Tree.unique("idem-bad")
        for bad in [String(repeating: "a", count: 129), "has space", "a.b"] {
            let result = try await client.tree("PUT", "\(root)/n", "1", headers: ["X-Hearth-Write-Id": bad])
            #expect(result.status == 400, "\(bad)")
        }
        let commit = try await client.request(
            "POST", "\(FS.root()):commit", json: #"{"writes":[]}"#, headers: ["X-Hearth-Write-Id": "a b"])
        #expect(commit.status == 400)
        #expect(try await client.treeValue("\(root)/n") == .null)
    }
}
