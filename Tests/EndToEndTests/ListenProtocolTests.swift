import Foundation
import HearthCore
import HearthTesting
import Testing

/// The listen channel's requests and errors. Heartbeats every 0.3 s, so a closed stream is noticed quickly.
@Suite(SharedHearth(options: .fastHeartbeats)) struct ListenProtocolTests {
    @Test func theStreamIsServerSentEventsAndStartsWithTheSession() async throws {
        let server = try SharedHearth.server
        let stream = try ListenStream.open(server)
        #expect(!stream.client.session.isEmpty)
        #expect(stream.client.allEvents.first?.name == "session")
        let refused = try SSEClientHead.get(server, accept: "application/json")
        #expect(refused.hasPrefix("HTTP/1.1 400"), "\(refused)")
    }

    @Test func requestsToASessionThatDoesNotExistAreNotFound() async throws {
        let server = try SharedHearth.server
        let result = try await server.client.request(
            "POST", FS.root() + ":listen", query: [("session", "no-such-session")], json: #"{"removeTarget":1}"#)
        expectError(result, 404, "NOT_FOUND", messageContains: ["does not exist"])
        let missing = try await server.client.request("POST", FS.root() + ":listen", json: #"{"removeTarget":1}"#)
        expectError(missing, 400, "INVALID_ARGUMENT", messageContains: ["session"])
    }

    @Test func malformedRequestsAreRefusedAtOnce() async throws {
        let server = try SharedHearth.server
        let stream = try ListenStream.open(server)
        expectError(try await stream.post(#"{"addTarget":{"targetId":1}}"#), 400, "INVALID_ARGUMENT")
        expectError(try await stream.post("not json"), 400, "INVALID_ARGUMENT")
        expectError(
            try await stream.post(
                #"{"addTarget":{"targetId":1,"query":{"parent":"projects/demo/databases/(default)/documents","structuredQuery":{"from":[{"collectionId":"a"}],"offset":1}}}}"#
            ),
            400, "INVALID_ARGUMENT", messageContains: ["offset"])
        try await stream.add(1, documents: ["\(FS.unique("dup"))/a"])
        expectError(
            try await stream.post(#"{"addTarget":{"targetId":1,"documents":{"documents":["\#(FS.name("a/b"))"]}}}"#),
            400,
            "INVALID_ARGUMENT", messageContains: ["already active"])
        let other = try await server.client.request(
            "POST", FS.root("otherproject") + ":listen", query: [("session", stream.client.session)],
            json: #"{"removeTarget":1}"#)
        // Each project has its own listen hub in development mode: another project's has no such session.
        expectError(other, 404, "NOT_FOUND", messageContains: ["does not exist"])
    }

    @Test func onlyTheCallerWhoOpenedASessionDrivesIt() async throws {
        let server = try SharedHearth.server
        let stream = try ListenStream.open(server)
        // In development mode `owner` is the admin credential: a different identity from the anonymous opener.
        let result = try await stream.post(
            #"{"addTarget":{"targetId":1,"documents":{"documents":["\#(FS.name("a/b"))"]}}}"#,
            headers: ["Authorization": "Bearer owner"])
        expectError(result, 403, "PERMISSION_DENIED", messageContains: ["another caller"])
        let admin = try ListenStream.open(server, headers: ["Authorization: Bearer owner"])
        let ok = try await admin.post(
            #"{"addTarget":{"targetId":1,"documents":{"documents":["\#(FS.name("a/b"))"]}}}"#,
            headers: ["Authorization": "Bearer owner"])
        #expect(ok.status == 200)
        let forged = try await admin.post(#"{"removeTarget":1}"#, headers: ["Authorization": "Bearer not-a-token"])
        expectError(forged, 401, "UNAUTHENTICATED")
    }

    @Test func closingTheStreamEndsTheSession() async throws {
        let server = try SharedHearth.server
        let stream = try ListenStream.open(server)
        try await stream.add(1, documents: ["\(FS.unique("gone"))/a"])
        _ = try await stream.nextBatch()
        stream.client.close()
        let deadline = ContinuousClock.now + .seconds(20)
        var status = 200
        while status != 404 && ContinuousClock.now < deadline {
            status = try await stream.post(#"{"removeTarget":1}"#).status
            if status != 404 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(status == 404, "the session outlived its stream")
    }

    @Test func theDocumentNamesFollowTheProjectOfTheStream() async throws {
        let server = try SharedHearth.server
        let shared = FS.unique("projects")
        let stream = try ListenStream.open(server, project: "elsewhere")
        try await stream.add(1, documents: ["\(shared)/a"])
        _ = try await stream.nextBatch()
        // Projects are kept apart in development mode: a write to `demo` is not this stream's, one to `elsewhere` is.
        try await server.set("\(shared)/a", intFields(2))
        try await server.set("\(shared)/a", intFields(1), project: "elsewhere")
        let events = try await stream.nextBatchEvents()
        #expect(
            events.first?.json?["documentChange"]?["document"]?["fields"]?["n"]?["integerValue"] == "1", "\(events)")
        #expect(
            events.first?.json?["documentChange"]?["document"]?["name"]?.stringValue
                == "projects/elsewhere/databases/(default)/documents/\(shared)/a")
    }
}

/// A bare GET of the listen URL with a chosen Accept header, returning the response head and body start.
enum SSEClientHead {
    static func get(_ server: HearthProcess, accept: String) throws -> String {
        let socket = try RawSocket(port: server.port, timeout: 20)
        try socket.send("GET \(FS.root()):listen HTTP/1.1\r\nHost: x\r\nAccept: \(accept)\r\nConnection: close\r\n\r\n")
        return socket.readAll().text
    }
}
