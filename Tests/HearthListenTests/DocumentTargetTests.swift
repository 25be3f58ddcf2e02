import HearthCore
import HearthStore
import Testing

@testable import HearthListen

@Suite struct DocumentTargetTests {
    @Test func initialSnapshotThenChangesThenDelete() {
        let hub = CoreHarness()
        hub.write(("rooms/a", fields(("n", int(1)))))
        let sink = hub.open()
        hub.add(1, .documents([.of("rooms/a"), .of("rooms/b")]))
        #expect(sink.take() == ["ADD 1", "change rooms/a [1]", "CURRENT 1 @1", "marker @1"])

        hub.write(("rooms/a", fields(("n", int(2)))))
        #expect(sink.take() == ["change rooms/a [1]", "marker @2"])
        hub.write(("rooms/b", fields(("n", int(3)))))
        #expect(sink.take() == ["change rooms/b [1]", "marker @3"])
        hub.write(("rooms/a", nil))
        #expect(sink.take() == ["delete rooms/a [1]", "marker @4"])
        hub.write(("rooms/c", fields(("n", int(4)))))
        #expect(sink.take() == [], "a document nobody watches reaches no one")
    }

    @Test func theDocumentsOfAChangeCarryTheirFieldsAndName() throws {
        let hub = CoreHarness()
        let sink = hub.open()
        hub.add(7, .documents([.of("rooms/a")]))
        sink.reset()
        hub.write(("rooms/a", fields(("title", str("hello")))))
        guard case .documentChange(let document, let ids) = try #require(sink.responses.first) else {
            Issue.record("expected a documentChange, got \(sink.responses)")
            return
        }
        #expect(ids == [7])
        #expect(document.name == "projects/demo/databases/(default)/documents/rooms/a")
        let json = try JSONParser.parse(document.json)
        #expect(json["fields"]?["title"]?["stringValue"]?.stringValue == "hello")
        #expect(json["updateTime"]?.stringValue != nil)
    }

    @Test func oneChangeReachingSeveralTargetsOfASessionIsOneEvent() {
        let hub = CoreHarness()
        let sink = hub.open()
        hub.add(1, .documents([.of("rooms/a")]))
        hub.add(2, .documents([.of("rooms/a"), .of("rooms/b")]))
        hub.add(3, .query(query("rooms")))
        sink.reset()
        hub.write(("rooms/a", fields(("n", int(1)))))
        #expect(sink.take() == ["change rooms/a [1,2,3]", "marker @1"])
        hub.write(("rooms/a", nil))
        #expect(sink.take() == ["delete rooms/a [1,2,3]", "marker @2"])
    }

    @Test func aCommitOfSeveralWritesIsOneBatchWithOneMarker() {
        let hub = CoreHarness()
        let sink = hub.open()
        hub.add(1, .documents([.of("rooms/a"), .of("rooms/b")]))
        sink.reset()
        hub.write(("rooms/a", fields(("n", int(1)))), ("rooms/b", fields(("n", int(2)))))
        #expect(sink.batches.count == 1)
        #expect(sink.take() == ["change rooms/a [1]", "change rooms/b [1]", "marker @2"])
    }

    @Test func changesAlreadyAppliedAreNotAppliedTwice() {
        let hub = CoreHarness()
        let sink = hub.open()
        hub.add(1, .documents([.of("rooms/a")]))
        sink.reset()
        let records = hub.write(("rooms/a", fields(("n", int(1)))))
        hub.core.apply(records, now: .zero)
        #expect(sink.take() == ["change rooms/a [1]", "marker @1"])
    }

    @Test func aDocumentTargetReadsTheDocumentAsOfTheHubsPosition() {
        let hub = CoreHarness()
        hub.write(("rooms/a", fields(("n", int(1)))))
        // Committed, but the hub has not processed it yet: the initial result must not include it.
        hub.writeUnseen("rooms/a", fields(("n", int(2))))
        hub.writeUnseen("rooms/b", fields(("n", int(3))))
        let sink = hub.open()
        hub.add(1, .documents([.of("rooms/a"), .of("rooms/b")]))
        let initial = sink.responses
        #expect(initial.map(describe) == ["ADD 1", "change rooms/a [1]", "CURRENT 1 @1", "marker @1"])
        if case .documentChange(let document, _) = initial[1] {
            #expect(String(decoding: document.document.fieldsJSON, as: UTF8.self).contains("\"1\""))
        }
        sink.reset()
        hub.core.apply((try? hub.source.changes(after: 1, limit: 10)) ?? [], now: .zero)
        #expect(sink.take() == ["change rooms/a [1]", "change rooms/b [1]", "marker @3"])
    }
}
