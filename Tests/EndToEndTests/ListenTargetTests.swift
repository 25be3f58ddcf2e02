import Foundation
import HearthCore
import HearthTesting
import Testing

/// `documents:listen` against a real server: targets on documents and queries, over a real SSE connection.
@Suite(.sharedHearth) struct ListenTargetTests {
    @Test func aDocumentTargetDeliversItsSnapshotThenEveryChange() async throws {
        let server = try SharedHearth.server
        let rooms = FS.unique("rooms")
        try await server.set("\(rooms)/a", intFields(1))
        let stream = try ListenStream.open(server)
        try await stream.add(1, documents: ["\(rooms)/a", "\(rooms)/b"])
        #expect(try await stream.nextBatch() == ["ADD 1", "change \(rooms)/a [1]", "CURRENT 1", "marker"])

        try await server.set("\(rooms)/a", intFields(2))
        let modified = try await stream.nextBatchEvents()
        #expect(modified.map(describeListen) == ["change \(rooms)/a [1]", "marker"])
        #expect(modified[0].json?["documentChange"]?["document"]?["fields"]?["n"]?["integerValue"]?.stringValue == "2")
        try await server.set("\(rooms)/b", intFields(3))
        #expect(try await stream.nextBatch() == ["change \(rooms)/b [1]", "marker"], "an added document arrives")
        try await server.delete("\(rooms)/a")
        #expect(try await stream.nextBatch() == ["delete \(rooms)/a [1]", "marker"])
    }

    @Test func documentsEnterAndLeaveAQuery() async throws {
        let server = try SharedHearth.server
        let tasks = FS.unique("tasks")
        try await server.set("\(tasks)/a", #"{"done":{"booleanValue":false}}"#)
        try await server.set("\(tasks)/b", #"{"done":{"booleanValue":true}}"#)
        let stream = try ListenStream.open(server)
        try await stream.add(
            3,
            query:
                #"{"from":[{"collectionId":"\#(tasks)"}],"where":{"fieldFilter":{"field":{"fieldPath":"done"},"op":"EQUAL","value":{"booleanValue":false}}}}"#
        )
        #expect(try await stream.nextBatch() == ["ADD 3", "change \(tasks)/a [3]", "CURRENT 3", "marker"])
        try await server.set("\(tasks)/b", #"{"done":{"booleanValue":false}}"#)
        #expect(try await stream.nextBatch() == ["change \(tasks)/b [3]", "marker"], "b starts matching: added")
        try await server.set("\(tasks)/a", #"{"done":{"booleanValue":true}}"#)
        #expect(
            try await stream.nextBatch() == ["remove \(tasks)/a [3]", "marker"],
            "a stops matching: removed, not deleted")
        try await server.set("\(tasks)/c", #"{"done":{"booleanValue":true}}"#)
        try await server.delete("\(tasks)/b")
        #expect(
            try await stream.nextBatch() == ["delete \(tasks)/b [3]", "marker"],
            "c never matched, so nothing came for it")
    }

    @Test func aLimitQueryLetsTheNextDocumentInWhenOneLeaves() async throws {
        let server = try SharedHearth.server
        let scores = FS.unique("scores")
        for n in 1...5 { try await server.set("\(scores)/s\(n)", intFields(n)) }
        let stream = try ListenStream.open(server)
        try await stream.add(
            1,
            query:
                #"{"from":[{"collectionId":"\#(scores)"}],"orderBy":[{"field":{"fieldPath":"n"},"direction":"DESCENDING"}],"limit":2}"#
        )
        #expect(
            try await stream.nextBatch() == [
                "ADD 1", "change \(scores)/s5 [1]", "change \(scores)/s4 [1]", "CURRENT 1", "marker",
            ])
        try await server.delete("\(scores)/s5")
        #expect(try await stream.nextBatch() == ["change \(scores)/s3 [1]", "delete \(scores)/s5 [1]", "marker"])
        try await server.set("\(scores)/s9", intFields(9))
        #expect(try await stream.nextBatch() == ["change \(scores)/s9 [1]", "remove \(scores)/s3 [1]", "marker"])
        try await server.set("\(scores)/s4", intFields(0))
        #expect(try await stream.nextBatch() == ["change \(scores)/s3 [1]", "remove \(scores)/s4 [1]", "marker"])
    }

    @Test func manyTargetsShareOneStream() async throws {
        let server = try SharedHearth.server
        let items = FS.unique("items")
        let stream = try ListenStream.open(server)
        let count = 40
        for id in 1...count { try await stream.add(id, documents: ["\(items)/d\(id)"]) }
        try await stream.add(100, query: #"{"from":[{"collectionId":"\#(items)"}]}"#)
        for id in 1...count {
            #expect(try await stream.nextBatch() == ["ADD \(id)", "CURRENT \(id)", "marker"])
        }
        #expect(try await stream.nextBatch() == ["ADD 100", "CURRENT 100", "marker"])
        try await server.set("\(items)/d7", intFields(7))
        #expect(
            try await stream.nextBatch() == ["change \(items)/d7 [7,100]", "marker"], "one event names both targets")
        try await server.set("\(items)/d40", intFields(40))
        #expect(try await stream.nextBatch() == ["change \(items)/d40 [40,100]", "marker"])
    }

    @Test func aRemovedTargetGetsNothingMore() async throws {
        let server = try SharedHearth.server
        let notes = FS.unique("notes")
        let stream = try ListenStream.open(server)
        try await stream.add(1, documents: ["\(notes)/a"])
        try await stream.add(2, documents: ["\(notes)/a", "\(notes)/b"])
        _ = try await stream.nextBatch()
        _ = try await stream.nextBatch()
        try await stream.remove(1)
        #expect(try await stream.nextBatch() == ["REMOVE 1", "marker"])
        try await server.set("\(notes)/a", intFields(1))
        #expect(try await stream.nextBatch() == ["change \(notes)/a [2]", "marker"])
        let again = try await stream.post(#"{"removeTarget":1}"#)
        expectError(again, 400, "INVALID_ARGUMENT", messageContains: ["not active"])
        try await stream.add(1, documents: ["\(notes)/b"])
        #expect(try await stream.nextBatch() == ["ADD 1", "CURRENT 1", "marker"], "a removed ID can be used again")
    }

    @Test func aOnceTargetIsARead() async throws {
        let server = try SharedHearth.server
        let once = FS.unique("once")
        try await server.set("\(once)/a", intFields(1))
        let stream = try ListenStream.open(server)
        let result = try await stream.post(
            #"{"addTarget":{"targetId":4,"once":true,"documents":{"documents":["\#(FS.name("\(once)/a"))"]}}}"#)
        #expect(result.status == 200)
        #expect(try await stream.nextBatch() == ["ADD 4", "change \(once)/a [4]", "CURRENT 4", "REMOVE 4", "marker"])
    }

    @Test func theServerPicksATargetIDWhenGivenNone() async throws {
        let server = try SharedHearth.server
        let stream = try ListenStream.open(server)
        let result = try await stream.post(
            #"{"addTarget":{"documents":{"documents":["\#(FS.name("\(FS.unique("x"))/a"))"]}}}"#)
        #expect(result.status == 200)
        #expect(try await stream.nextBatch() == ["ADD 1", "CURRENT 1", "marker"])
    }
}
