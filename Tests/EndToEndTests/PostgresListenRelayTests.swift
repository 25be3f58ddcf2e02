import Foundation
import HearthCore
import HearthPostgresTestSupport
import HearthTesting
import Testing

/// A listen session's stream lives on one node, but its POSTs may reach any node on the PostgreSQL database: a node
/// that does not hold the session authenticates the caller and relays the request to the node that does, whose
/// answer it gives (issue 22). A session that ended, or whose node is gone, answers 404 as on one node.
@Suite("Listen POSTs relayed between nodes on one PostgreSQL database", .serialized, TestCluster.requirement)
struct PostgresListenRelayTests {
    static func node(_ url: String) async throws -> HearthProcess {
        var options = HearthProcess.Options()
        options.project = "demo"
        options.extraArguments = ["--store", url]
        return try await HearthProcess.start(options)
    }

    /// The stream opened on one node, with its POSTs sent to `node`.
    static func posting(_ stream: ListenStream, to node: HearthProcess) -> ListenStream {
        ListenStream(server: node, client: stream.client, project: stream.project, database: stream.database)
    }

    /// Events up to the marker after which `wanted` has come: a write through another node reaches the stream's node
    /// a moment after its commit, so a new target's snapshot may be read before it, and the write come as a change.
    static func events(_ stream: ListenStream, through wanted: String) async throws -> [StreamEvent] {
        var events: [StreamEvent] = []
        while !events.map(describeListen).contains(wanted) { events += try await stream.nextBatchEvents() }
        return events
    }

    @Test("a target added through a second node reaches the first node's stream; removed through a third, it stops")
    func targetsAddedAndRemovedThroughOtherNodes() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let first = try await Self.node(url)
        let second = try await Self.node(url)
        let third = try await Self.node(url)
        let notes = FS.unique("notes")
        try await third.set("\(notes)/a", intFields(1))

        let stream = try ListenStream.open(first)
        let viaSecond = Self.posting(stream, to: second)
        let viaThird = Self.posting(stream, to: third)
        try await viaSecond.add(1, documents: ["\(notes)/a"])
        let snapshot = try await Self.events(stream, through: "change \(notes)/a [1]")
        #expect(
            snapshot.map(describeListen).prefix(1) == ["ADD 1"] && snapshot.map(describeListen).contains("CURRENT 1"))
        let document = snapshot.first { describeListen($0) == "change \(notes)/a [1]" }
        #expect(document?.json?["documentChange"]?["document"]?["fields"]?["n"]?["integerValue"]?.stringValue == "1")

        try await third.set("\(notes)/a", intFields(2))
        let changed = try await stream.nextBatchEvents()
        #expect(changed.map(describeListen) == ["change \(notes)/a [1]", "marker"], "a change written on a third node")
        #expect(changed[0].json?["documentChange"]?["document"]?["fields"]?["n"]?["integerValue"]?.stringValue == "2")

        // The answer comes from the node holding the session: its own checks, its own error.
        let taken = try await viaSecond.post(
            #"{"addTarget":{"targetId":1,"documents":{"documents":["\#(FS.name("\(notes)/b"))"]}}}"#)
        expectError(taken, 400, "INVALID_ARGUMENT", messageContains: ["already active"])

        try await viaThird.remove(1)
        #expect(try await stream.nextBatch() == ["REMOVE 1", "marker"])
        // Written before b is: were target 1 still there, its change would come before b's.
        try await third.set("\(notes)/a", intFields(3))
        try await viaSecond.add(2, documents: ["\(notes)/b"])
        #expect(try await stream.nextBatch() == ["ADD 2", "CURRENT 2", "marker"])
        try await third.set("\(notes)/b", intFields(4))
        #expect(try await stream.nextBatch() == ["change \(notes)/b [2]", "marker"], "nothing more for target 1")
        let again = try await viaSecond.post(#"{"removeTarget":1}"#)
        expectError(again, 400, "INVALID_ARGUMENT", messageContains: ["not active"])
        stream.client.close()
    }

    @Test("another user's POST is refused through another node as on the session's own; unknown sessions are 404")
    func callersAndUnknownSessions() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let first = try await Self.node(url)
        let second = try await Self.node(url)
        let owner = try #require(try await first.client.signUp(Accounts.uniqueEmail("owner"))["idToken"]?.stringValue)
        let other = try #require(try await second.client.signUp(Accounts.uniqueEmail("other"))["idToken"]?.stringValue)
        let path = FS.unique("mine") + "/doc"
        try await first.set(path, intFields(1))
        let stream = try ListenStream.open(first, headers: ["Authorization: Bearer \(owner)"])
        let add = #"{"addTarget":{"targetId":1,"documents":{"documents":["\#(FS.name(path))"]}}}"#

        let direct = try await stream.post(add, headers: ["Authorization": "Bearer \(other)"])
        let relayed = try await Self.posting(stream, to: second).post(
            add, headers: ["Authorization": "Bearer \(other)"])
        let refusal = expectError(relayed, 403, "PERMISSION_DENIED", messageContains: ["another caller"])
        #expect(direct.status == relayed.status && direct.text == relayed.text, "\(direct) vs \(relayed) \(refusal)")
        let unsigned = try await Self.posting(stream, to: second).post(add)
        #expect(unsigned.status == 403, "a caller without a token is not the session's owner either: \(unsigned)")

        let accepted = try await Self.posting(stream, to: second).post(
            add, headers: ["Authorization": "Bearer \(owner)"])
        #expect(accepted.status == 200 && accepted.text == "{}", "\(accepted)")
        let snapshot = try await Self.events(stream, through: "change \(path) [1]").map(describeListen)
        #expect(snapshot.prefix(1) == ["ADD 1"] && snapshot.contains("CURRENT 1"), "\(snapshot)")

        // A session of the first node that does not exist, and one that names no node at all.
        let node = try #require(stream.client.session.split(separator: ".").first.map(String.init))
        for session in [node + ".no-such-session", "no-such-session"] {
            let missing = try await second.client.request(
                "POST", FS.root() + ":listen", query: [("session", session)], json: add)
            expectError(missing, 404, "NOT_FOUND", messageContains: ["does not exist"])
        }
        stream.client.close()
    }

    @Test("a POST for the session of a node killed with kill -9 answers 404 through another node")
    func sessionOfADeadNode() async throws {
        let url = try TestCluster.shared().createDatabaseURL()
        let first = try await Self.node(url)
        let second = try await Self.node(url)
        let stream = try ListenStream.open(first)
        let viaSecond = Self.posting(stream, to: second)
        try await viaSecond.add(1, documents: [FS.unique("gone") + "/a"])
        _ = try await stream.nextBatch()
        _ = try await first.kill9()
        let missing = try await viaSecond.post(#"{"removeTarget":1}"#)
        expectError(missing, 404, "NOT_FOUND", messageContains: ["does not exist"])
        stream.client.close()
    }
}
