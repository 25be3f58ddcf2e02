import Foundation
import HearthCore
import HearthPostgresTestSupport
import HearthTesting
import Testing

/// Transactions and listings over REST on two `hearth serve --store postgres://…` nodes of one database: a
/// transaction begun on one node reads and commits on the other — as a client whose connection the load balancer
/// moved — and a read set another commit changed is `ABORTED` whichever node commits it.
@Suite("Transactions and listings across PostgreSQL nodes", .serialized, TestCluster.requirement)
struct PostgresTransactionNodesTests {
    static let root = "/v1/projects/demo/databases/(default)/documents"
    static let name = "projects/demo/databases/(default)/documents"

    @Test("a transaction begun on one node reads and commits on the other; a changed read set is ABORTED")
    func transactionsMoveBetweenNodes() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let first = try await PostgresNodesTests.node(url)
        let second = try await PostgresNodesTests.node(url)
        let created = try await first.client.request(
            "POST", Self.root + "/rooms", query: [("documentId", "r1")], json: #"{"fields":{"n":{"integerValue":"1"}}}"#
        )
        #expect(created.status == 200, "\(created)")

        func begin(on node: HearthProcess) async throws -> String {
            let begun = try await node.client.request(
                "POST", Self.root + ":beginTransaction", json: #"{"options":{"readWrite":{}}}"#)
            return try #require(try begun.json()["transaction"]?.stringValue, "\(begun)")
        }
        func commit(_ transaction: String, n: Int, on node: HearthProcess) async throws -> HTTPResult {
            try await node.client.request(
                "POST", Self.root + ":commit",
                json: """
                    {"transaction":"\(transaction)","writes":[{"update":{"name":"\(Self.name)/rooms/r1",
                    "fields":{"n":{"integerValue":"\(n)"}}}}]}
                    """)
        }

        let transaction = try await begin(on: first)
        let read = try await second.client.get(Self.root + "/rooms/r1", query: [("transaction", transaction)])
        #expect(try read.json()["fields"]?["n"]?["integerValue"] == .string("1"), "\(read)")
        let committed = try await commit(transaction, n: 2, on: second)
        #expect(committed.status == 200, "\(committed)")
        let after = try await first.client.get(Self.root + "/rooms/r1")
        #expect(try after.json()["fields"]?["n"]?["integerValue"] == .string("2"), "\(after)")

        let stale = try await begin(on: second)
        _ = try await first.client.get(Self.root + "/rooms/r1", query: [("transaction", stale)])
        let meanwhile = try await commit(try await begin(on: second), n: 3, on: second)
        #expect(meanwhile.status == 200, "\(meanwhile)")
        let aborted = try await commit(stale, n: 9, on: first)
        #expect(aborted.status == 409, "\(aborted)")
        #expect(try aborted.json()["error"]?["status"]?.stringValue == "ABORTED", "\(aborted)")
        let kept = try await second.client.get(Self.root + "/rooms/r1")
        #expect(try kept.json()["fields"]?["n"]?["integerValue"] == .string("3"), "\(kept)")
    }

    @Test("listing with showMissing and listing collection IDs work on PostgreSQL")
    func listings() async throws {
        let node = try await PostgresNodesTests.node(try TestCluster.shared().createDatabaseURL())
        for path in ["rooms/a", "rooms/b/messages/m", "rooms/c", "users/u"] {
            let written = try await node.client.request("PATCH", Self.root + "/" + path, json: #"{"fields":{}}"#)
            #expect(written.status == 200, "\(written)")
        }
        let listed = try await node.client.get(Self.root + "/rooms", query: [("showMissing", "true")])
        let names = try listed.json()["documents"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(names == ["a", "b", "c"].map { "\(Self.name)/rooms/\($0)" }, "\(listed)")
        let ids = try await node.client.request("POST", Self.root + ":listCollectionIds", json: "{}")
        #expect(try ids.json()["collectionIds"] == .array([.string("rooms"), .string("users")]), "\(ids)")
    }
}
