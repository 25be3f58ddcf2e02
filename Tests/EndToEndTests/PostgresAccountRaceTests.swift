import Foundation
import HearthCore
import HearthPostgresTestSupport
import HearthTesting
import Testing

/// Two `hearth serve` nodes on one PostgreSQL database racing on one account: the conflicts PostgreSQL settles
/// (a serialization failure, a unique violation) must reach clients as one node's answers, never as a 500.
@Suite("Accounts raced across two PostgreSQL nodes", .serialized, TestCluster.requirement)
struct PostgresAccountRaceTests {
    /// `count` requests at once, alternating between `nodes`, each made by `request(node, index)`.
    private static func race(
        _ nodes: [HearthProcess], _ count: Int,
        _ request: @escaping @Sendable (HTTPClient, Int) async throws -> HTTPResult
    ) async throws -> [(index: Int, result: HTTPResult)] {
        try await withThrowingTaskGroup(of: (Int, HTTPResult).self) { group in
            for index in 0..<count {
                let client = nodes[index % nodes.count].client
                group.addTask { (index, try await request(client, index)) }
            }
            var results: [(index: Int, result: HTTPResult)] = []
            for try await (index, result) in group { results.append((index, result)) }
            return results
        }
    }

    @Test("one email signed up at once on two nodes: exactly one account, EMAIL_EXISTS for every other caller")
    func duplicateSignUps() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let nodes = [try await PostgresNodesTests.node(url), try await PostgresNodesTests.node(url)]
        let email = Accounts.uniqueEmail("race")
        let results = try await Self.race(nodes, 12) { client, _ in
            try await client.accounts(
                "signUp", ["email": .string(email), "password": "secret-password", "returnSecureToken": true])
        }
        let created = results.filter { $0.result.status == 200 }
        #expect(created.count == 1, "\(results.map(\.result))")
        for (_, result) in results where result.status != 200 {
            let message = expectAuthError(result, "EMAIL_EXISTS")
            #expect(message == "EMAIL_EXISTS", "the Identity Toolkit body one node gives: \(result)")
        }
        let listed = try expectOK(await nodes[1].client.admin("query", [:]))
        #expect(listed["recordsCount"] == .string("1"), "\(listed)")
        #expect(listed["userInfo"]?[0]?["email"] == .string(email), "\(listed)")
    }

    @Test("one account changed at once on two nodes: every change answers 200, and the last one is whole")
    func concurrentUpdates() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let nodes = [try await PostgresNodesTests.node(url), try await PostgresNodesTests.node(url)]
        let email = Accounts.uniqueEmail("updates")
        let uid = try #require(try await nodes[0].client.signUp(email)["localId"]?.stringValue)
        let count = 8
        let results = try await Self.race(nodes, count) { client, index in
            // The name and the password of one change are written together, so the survivor's must match.
            try await client.admin(
                "update",
                [
                    "localId": .string(uid), "displayName": .string("name \(index)"),
                    "password": .string("password-\(index)"),
                ])
        }
        for (index, result) in results {
            #expect(result.status == 200, "change \(index) collided with another and must still succeed: \(result)")
        }
        let looked = try expectOK(await nodes[1].client.admin("lookup", ["localId": [.string(uid)]]))
        let name = try #require(looked["users"]?[0]?["displayName"]?.stringValue, "\(looked)")
        let winner = try #require(Int(name.dropFirst("name ".count)), "\(name)")
        #expect((0..<count).contains(winner))
        _ = try expectOK(
            await nodes[0].client.accounts(
                "signInWithPassword", ["email": .string(email), "password": .string("password-\(winner)")]))
    }

    @Test(
        "one provider identity linked at once to several accounts on two nodes: one link, FEDERATED_USER_ID_ALREADY_LINKED for the others"
    )
    func duplicateLinks() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let nodes = [try await PostgresNodesTests.node(url), try await PostgresNodesTests.node(url)]
        var uids: [String] = []
        for index in 0..<6 {
            let account = try await nodes[index % 2].client.signUp(Accounts.uniqueEmail("link"))
            uids.append(try #require(account["localId"]?.stringValue))
        }
        let accounts = uids
        let results = try await Self.race(nodes, accounts.count) { client, index in
            try await client.admin(
                "update",
                [
                    "localId": .string(accounts[index]),
                    "linkProviderUserInfo": ["providerId": "oidc.race", "rawId": "one-identity"],
                ])
        }
        let linked = results.filter { $0.result.status == 200 }
        #expect(linked.count == 1, "\(results.map(\.result))")
        for (_, result) in results where result.status != 200 {
            let message = expectAuthError(result, "FEDERATED_USER_ID_ALREADY_LINKED")
            #expect(message == "FEDERATED_USER_ID_ALREADY_LINKED", "\(result)")
        }
        // The identity belongs to the account whose link answered 200, and to no other.
        for (index, uid) in accounts.enumerated() {
            let looked = try expectOK(await nodes[1].client.admin("lookup", ["localId": [.string(uid)]]))
            let providers = looked["users"]?[0]?["providerUserInfo"]?.arrayValue?.compactMap {
                $0["providerId"]?.stringValue
            }
            #expect(
                providers?.contains("oidc.race") == linked.contains { $0.index == index },
                "account \(index): \(looked)")
        }
    }
}
