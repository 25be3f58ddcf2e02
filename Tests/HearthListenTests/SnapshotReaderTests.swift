import HearthCore
import HearthStore
import Testing

@testable import HearthListen

@Suite struct SnapshotReaderTests {
    @Test func documentsAreReadAsOfEachPosition() throws {
        let source = FakeSource()
        source.write("rooms/a", fields(("n", int(1))), publish: false)  // 1
        source.write("rooms/b", fields(("n", int(1))), publish: false)  // 2
        source.write("rooms/a", fields(("n", int(2))), publish: false)  // 3
        source.write("rooms/b", nil, publish: false)  // 4
        let reader = SnapshotReader(source: source, pageSize: 2)
        let states = try reader.documents([.of("rooms/a"), .of("rooms/b")], at: [1, 3, 4], requireCoverage: true)
        #expect(states[0].documents.map(\.path) == [.of("rooms/a")])
        #expect(states[1].documents.map { $0.fields["n"] } == [.integer(2), .integer(1)])
        #expect(states[2].documents.map(\.path) == [.of("rooms/a")])
        #expect(states[2].existence[.of("rooms/b")] == false)
        #expect(states[1].existence[.of("rooms/b")] == true)
    }

    @Test func aLimitQueryIsReadAsOfAPositionDespiteLaterWrites() throws {
        let source = FakeSource()
        for n in 1...50 { source.write("scores/s\(n)", fields(("n", int(n))), publish: false) }
        // Forty documents that would sort first arrive after position 50.
        for n in 0..<40 { source.write("scores/early\(n)", fields(("n", int(-n))), publish: false) }
        let reader = SnapshotReader(source: source, pageSize: 7)
        let limited = query("scores", orderBy: [("n", false)], limit: 3).normalized()
        let state = try reader.query(limited, capacity: 5, at: [50], requireCoverage: false)[0]
        #expect(state.documents.map(\.path) == (1...5).map { .of("scores/s\($0)") })
        #expect(!state.exhaustive)
        #expect(source.queryCount == 2, "the first read's slack was too small for 40 touched documents; read again")
    }

    @Test func aPrunedLogIsReportedAsNotCovered() {
        let source = FakeSource()
        for n in 1...5 { source.write("rooms/r\(n)", fields(("n", int(n))), publish: false) }
        source.prune(through: 2)
        let reader = SnapshotReader(source: source, pageSize: 10)
        #expect(throws: SnapshotFailure.self) {
            try reader.documents([.of("rooms/r1")], at: [1], requireCoverage: true)
        }
        #expect((try? reader.documents([.of("rooms/r1")], at: [2], requireCoverage: true)) != nil)
        #expect(throws: SnapshotFailure.self) { try reader.records(after: 2, requireCoverage: true, maxRecords: 2) }
    }
}
