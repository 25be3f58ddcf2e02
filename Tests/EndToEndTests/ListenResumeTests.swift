import Foundation
import HearthCore
import HearthTesting
import Testing

/// Resuming a listen on a new stream with the resume token of an earlier one.
@Suite(.sharedHearth) struct ListenResumeTests {
    @Test func aResumedTargetGetsOnlyWhatChangedSinceItsToken() async throws {
        let server = try SharedHearth.server
        let rooms = FS.unique("rooms")
        for id in ["a", "b", "c"] { try await server.set("\(rooms)/\(id)", #"{"open":{"booleanValue":true}}"#) }
        let query =
            #"{"from":[{"collectionId":"\#(rooms)"}],"where":{"fieldFilter":{"field":{"fieldPath":"open"},"op":"EQUAL","value":{"booleanValue":true}}}}"#
        let first = try ListenStream.open(server)
        try await first.add(1, query: query)
        let initial = try await first.nextBatchEvents()
        #expect(
            initial.map(describeListen) == [
                "ADD 1", "change \(rooms)/a [1]", "change \(rooms)/b [1]", "change \(rooms)/c [1]", "CURRENT 1",
                "marker",
            ])
        let token = try #require(initial.last.flatMap(resumeToken(of:)))
        first.client.close()

        // While disconnected: one changes, one stops matching, one is deleted, one is added.
        try await server.set("\(rooms)/a", #"{"open":{"booleanValue":true},"n":{"integerValue":"1"}}"#)
        try await server.set("\(rooms)/b", #"{"open":{"booleanValue":false}}"#)
        try await server.delete("\(rooms)/c")
        try await server.set("\(rooms)/d", #"{"open":{"booleanValue":true}}"#)
        try await server.set("\(FS.unique("elsewhere"))/x", intFields(1))

        let second = try ListenStream.open(server)
        try await second.add(1, query: query, resumeToken: token)
        #expect(
            try await second.nextBatch() == [
                "ADD 1", "change \(rooms)/a [1]", "change \(rooms)/d [1]", "remove \(rooms)/b [1]",
                "delete \(rooms)/c [1]",
                "filter 1=2", "CURRENT 1", "marker",
            ])

        // Resuming with the newest token replays nothing.
        let latest = try #require(second.client.allEvents.last.flatMap(resumeToken(of:)))
        let third = try ListenStream.open(server)
        try await third.add(1, query: query, resumeToken: latest)
        #expect(try await third.nextBatch() == ["ADD 1", "filter 1=2", "CURRENT 1", "marker"])
    }

    @Test func aTokenTheServerCannotPlaceGetsAReset() async throws {
        let server = try SharedHearth.server
        let rooms = FS.unique("rooms")
        try await server.set("\(rooms)/a", intFields(1))
        let stream = try ListenStream.open(server)
        // A well-formed token far beyond the log's head (as after restoring an older data directory).
        let future = Data([1, 0x7f, 0, 0, 0, 0, 0, 0, 0]).base64EncodedString()
        try await stream.add(1, documents: ["\(rooms)/a"], resumeToken: future)
        #expect(try await stream.nextBatch() == ["ADD 1", "RESET 1", "change \(rooms)/a [1]", "CURRENT 1", "marker"])
        expectError(
            try await stream.post(
                #"{"addTarget":{"targetId":2,"resumeToken":"bm90IGEgdG9rZW4=","documents":{"documents":["\#(FS.name("\(rooms)/a"))"]}}}"#
            ),
            400, "INVALID_ARGUMENT", messageContains: ["resume token"])
    }

    @Test func resumeTokensSurviveARestart() async throws {
        try await withHearth { server in
            try await server.set("keep/a", intFields(1))
            let stream = try ListenStream.open(server)
            try await stream.add(1, documents: ["keep/a", "keep/b"])
            let token = try #require(try await stream.nextBatchEvents().last.flatMap(resumeToken(of:)))
            stream.client.close()
            try await server.stop()
            let restarted = try await server.restart()
            try await restarted.set("keep/b", intFields(2))
            let resumed = try ListenStream.open(restarted)
            try await resumed.add(1, documents: ["keep/a", "keep/b"], resumeToken: token)
            #expect(
                try await resumed.nextBatch() == ["ADD 1", "change keep/b [1]", "filter 1=2", "CURRENT 1", "marker"])
            try await restarted.stop()
        }
    }
}
