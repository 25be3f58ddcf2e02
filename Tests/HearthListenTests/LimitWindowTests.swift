import HearthCore
import HearthStore
import Testing

@testable import HearthListen

@Suite struct LimitWindowTests {
    private let orderBy = [QueryOrder(field: FieldPath(segments: ["n"])), QueryOrder(field: .documentName)]

    private func document(_ id: String, _ n: Int, version: Int64 = 1) -> MatchedDocument {
        let path = ResourcePath.of("scores/\(id)")
        let fields: [String: Value] = ["n": .integer(Int64(n))]
        return MatchedDocument(
            document: StoredDocument(
                path: path, fieldsJSON: Value.encodeFields(fields), createTime: Timestamp(seconds: 1, nanos: 0),
                updateTime: Timestamp(seconds: version, nanos: 0)),
            fields: fields)
    }

    private func window(limit: Int, _ documents: [MatchedDocument], exhaustive: Bool) -> LimitWindow {
        var window = LimitWindow(limit: limit, orderBy: orderBy)
        window.replace(with: documents, exhaustive: exhaustive)
        return window
    }

    @Test func insertingBeforeTheEndShiftsTheLastVisibleOut() {
        var window = window(limit: 2, [document("a", 1), document("b", 2), document("c", 3)], exhaustive: true)
        let before = window.apply(path: .of("scores/z"), new: document("z", 0))
        #expect(before?.map(\.path) == [.of("scores/a"), .of("scores/b")])
        #expect(window.visible.map(\.path) == [.of("scores/z"), .of("scores/a")])
        #expect(window.entries.count == 4)
    }

    @Test func changesBehindTheVisiblePartReportNothing() {
        var window = window(limit: 1, [document("a", 1), document("b", 2)], exhaustive: true)
        #expect(window.apply(path: .of("scores/b"), new: document("b", 5, version: 2)) == nil)
        #expect(window.apply(path: .of("scores/c"), new: document("c", 9)) == nil)
        #expect(window.entries.map(\.path) == [.of("scores/a"), .of("scores/b"), .of("scores/c")])
    }

    @Test func aDocumentAfterTheKnownRangeOfAnIncompleteWindowIsNotKept() {
        var window = window(limit: 1, [document("a", 1), document("b", 2)], exhaustive: false)
        #expect(window.apply(path: .of("scores/c"), new: document("c", 9)) == nil)
        #expect(!window.contains(.of("scores/c")), "unknown documents may come between b and c")
        #expect(window.apply(path: .of("scores/c"), new: document("c", 0)) != nil)
        #expect(window.visible.map(\.path) == [.of("scores/c")])
    }

    @Test func overflowingTheCapacityDropsTheLastAndForgetsCompleteness() {
        let capacity = LimitWindow.capacity(forLimit: 1)
        var window = window(limit: 1, (0..<capacity).map { document("d\($0)", $0 + 10) }, exhaustive: true)
        #expect(window.exhaustive)
        _ = window.apply(path: .of("scores/new"), new: document("new", 0))
        #expect(window.entries.count == capacity)
        #expect(!window.exhaustive)
        #expect(!window.contains(.of("scores/d\(capacity - 1)")))
    }

    @Test func runningShortOfAnIncompleteWindowAsksForARefill() {
        var window = window(limit: 2, [document("a", 1), document("b", 2)], exhaustive: false)
        #expect(!window.needsRefill)
        _ = window.apply(path: .of("scores/a"), new: nil)
        #expect(window.needsRefill)
        var complete = self.window(limit: 2, [document("a", 1), document("b", 2)], exhaustive: true)
        _ = complete.apply(path: .of("scores/a"), new: nil)
        #expect(!complete.needsRefill, "a complete window knows there is nothing more")
    }

    @Test func movingADocumentKeepsTheOrder() {
        var window = window(limit: 3, [document("a", 1), document("b", 2), document("c", 3)], exhaustive: true)
        _ = window.apply(path: .of("scores/a"), new: document("a", 5, version: 2))
        #expect(window.visible.map(\.path) == [.of("scores/b"), .of("scores/c"), .of("scores/a")])
        _ = window.apply(path: .of("scores/c"), new: document("c", 2, version: 2))
        #expect(
            window.visible.map(\.path) == [.of("scores/b"), .of("scores/c"), .of("scores/a")], "ties order by name")
    }

    @Test func deltasNameEnteringChangedRemovedAndDeletedDocuments() {
        let before = [document("a", 1), document("b", 2), document("c", 3)].map {
            VisibleEntry(path: $0.path, updateTime: $0.document.updateTime)
        }
        let after = [document("a", 1), document("c", 3, version: 2), document("d", 4)]
        let delta = ViewDelta.between(before, after, isDeleted: { $0 == .of("scores/x") })
        #expect(delta.changed.map(\.path) == [.of("scores/c"), .of("scores/d")])
        #expect(delta.removed == [.of("scores/b")])
        let deleted = ViewDelta.between(before, after, isDeleted: { $0 == .of("scores/b") })
        #expect(deleted.deleted == [.of("scores/b")] && deleted.removed.isEmpty)
    }
}
