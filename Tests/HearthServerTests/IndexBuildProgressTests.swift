import HearthCore
import HearthStore
import HearthTesting
import Testing

/// A composite index's build reports how far it has come through Firestore's Admin API list of indexes, in the
/// `progressDocuments` shape of Firestore's index operations — what the console's Indexes page draws. The build is
/// held between its steps by an `IndexBuildGate`, so the test looks at it half done without racing it.
@Suite("Index build progress")
struct IndexBuildProgressTests {
    static let root = "projects/demo/databases/(default)/documents"
    static let indexes = "/v1/projects/demo/databases/(default)/collectionGroups/-/indexes"

    @Test("a building index reports documents indexed out of the total, step by step, until it is ready")
    func progressDuringABuild() async throws {
        let gate = IndexBuildGate(allowing: 1)
        let server = try InProcessServer { $0.indexBuildGate = gate }
        defer {
            gate.open()
            server.stop()
        }
        // 1,200 documents: three steps of 500.
        for batch in 0..<3 {
            let writes = (0..<400).map { k in
                let n = batch * 400 + k
                return
                    #"{"update":{"name":"\#(Self.root)/notes/n\#(n)","fields":{"owner":{"stringValue":"\#(n % 2 == 0 ? "ann" : "bob")"},"rank":{"integerValue":"\#(n)"}}}}"#
            }
            let committed = try await server.request(
                "POST", "/v1/\(Self.root):commit", json: #"{"writes":[\#(writes.joined(separator: ","))]}"#)
            #expect(committed.status == 200, "\(committed)")
        }
        // Development mode answers a query without its index and learns the index, which starts building.
        let query =
            #"{"structuredQuery":{"from":[{"collectionId":"notes"}],"where":{"fieldFilter":{"field":{"fieldPath":"owner"},"op":"EQUAL","value":{"stringValue":"ann"}}},"orderBy":[{"field":{"fieldPath":"rank"},"direction":"DESCENDING"}]}}"#
        let answered = try await server.request("POST", "/v1/\(Self.root):runQuery", json: query)
        #expect(answered.status == 200, "\(answered)")

        // The gate let one step through: 500 of 1,200, and the index is still building.
        var index = try await listedIndex(server) { $0["progressDocuments"]?["completedWork"] == "500" }
        #expect(index["state"] == "CREATING", "\(index)")
        #expect(index["progressDocuments"]?["estimatedWork"] == "1200", "\(index)")
        // The same build as Firestore's long-running operation (`gcloud firestore operations list`).
        let operations = try await server.request("GET", "/v1/projects/demo/databases/(default)/operations")
        #expect(operations.status == 200, "\(operations)")
        let operation = try #require(try operations.json()["operations"]?[0])
        #expect(operation["done"] == false)
        #expect(operation["metadata"]?["state"] == "PROCESSING")
        #expect(operation["metadata"]?["index"] == index["name"])
        #expect(operation["metadata"]?["progressDocuments"] == index["progressDocuments"], "\(operation)")

        gate.allow(1)
        index = try await listedIndex(server) { $0["progressDocuments"]?["completedWork"] == "1000" }
        #expect(index["state"] == "CREATING", "\(index)")
        #expect(index["progressDocuments"]?["estimatedWork"] == "1200", "\(index)")

        // The last step: ready, and a ready index reports no progress.
        gate.allow(1)
        index = try await listedIndex(server) { $0["state"] == "READY" }
        #expect(index["progressDocuments"] == nil, "\(index)")
        let finished = try await server.request("GET", "/v1/projects/demo/databases/(default)/operations")
        #expect(try finished.json()["operations"] == [], "\(finished)")
    }

    /// The first listed index once `condition` holds for it (the build's steps run on the writer's thread).
    private func listedIndex(
        _ server: InProcessServer, until condition: (JSONValue) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        var last: JSONValue = .null
        for _ in 0..<400 {
            let listed = try await server.request("GET", Self.indexes)
            #expect(listed.status == 200, "\(listed)", sourceLocation: sourceLocation)
            last = try listed.json()["indexes"]?[0] ?? .null
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(25))
        }
        Issue.record("the index never reached the expected state: \(last)", sourceLocation: sourceLocation)
        return last
    }
}
