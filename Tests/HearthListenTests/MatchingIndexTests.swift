import HearthCore
import HearthStore
import Testing

@testable import HearthListen

@Suite struct MatchingIndexTests {
    private final class Item {
        let name: String
        init(_ name: String) { self.name = name }
    }

    private func change(_ path: String, before: [String: Value]?, after: [String: Value]?) -> DecodedChange {
        let path = ResourcePath.of(path)
        let time = Timestamp(seconds: 1, nanos: 0)
        func stored(_ fields: [String: Value]?) -> StoredDocument? {
            fields.map {
                StoredDocument(path: path, fieldsJSON: Value.encodeFields($0), createTime: time, updateTime: time)
            }
        }
        return DecodedChange(
            ChangeRecord(sequence: 1, commitTime: time, path: path, before: stored(before), after: stored(after)))
    }

    private func candidates(_ index: TargetIndex<Item>, _ change: DecodedChange) -> Set<String> {
        var names: Set<String> = []
        index.forEachCandidate(of: change) { names.insert($0.name) }
        return names
    }

    @Test func plansPinEqualityInAndNullTermsOfEveryBranch() {
        let owner = FieldPath(segments: ["owner"])
        #expect(
            IndexPlan(query: query("rooms", where: equals("owner", .string("u1")))).keys == [
                .init(field: owner, value: .string("u1"))
            ])
        let inPlan = IndexPlan(query: query("rooms", where: .field(owner, .in, .array([.string("a"), .integer(2)]))))
        #expect(inPlan.keys == [.init(field: owner, value: .string("a")), .init(field: owner, value: .integer(2))])
        let either = IndexPlan(
            query: query("rooms", where: .or([equals("owner", .string("a")), .unary(owner, .isNull)])))
        #expect(either.keys == [.init(field: owner, value: .string("a")), .init(field: owner, value: .null)])
        let ranged = IndexPlan(
            query: query(
                "rooms", where: .or([equals("owner", .string("a")), .field(owner, .greaterThan, .integer(1))])))
        #expect(ranged.keys == nil, "a branch without an equality is checked on every write")
        #expect(IndexPlan(query: query("rooms")).keys == nil)
        #expect(IndexPlan(query: query("rooms")).scope == .collection(.of("rooms")))
    }

    @Test func equalValuesShareAKey() {
        #expect(IndexValue(.integer(1)) == IndexValue(.double(1.0)))
        #expect(IndexValue(.double(-0.0)) == IndexValue(.integer(0)))
        #expect(IndexValue(.double(1.5)) != IndexValue(.integer(1)))
        #expect(IndexValue(.integer(9_007_199_254_740_993)) != IndexValue(.double(9_007_199_254_740_992)))
        #expect(IndexValue(.double(.nan)) == nil)
        #expect(IndexValue(.array([])) == nil)
    }

    @Test func aWriteReachesOnlyViewsPinnedToItsOldOrNewValue() {
        var index = TargetIndex<Item>()
        let views = (0..<100).map { Item("owner\($0)") }
        for (n, view) in views.enumerated() {
            index.insert(view, plan: IndexPlan(query: query("rooms", where: equals("owner", .string("u\(n)")))))
        }
        let scan = Item("scan")
        index.insert(
            scan,
            plan: IndexPlan(query: query("rooms", where: .field(FieldPath(segments: ["n"]), .greaterThan, .integer(1))))
        )
        let other = Item("other")
        index.insert(other, plan: IndexPlan(query: query("notes")))

        let moved = change("rooms/a", before: ["owner": .string("u3")], after: ["owner": .string("u7")])
        #expect(candidates(index, moved) == ["owner3", "owner7", "scan"])
        let created = change("rooms/b", before: nil, after: ["owner": .double(5)])
        #expect(candidates(index, created) == ["scan"], "5.0 is not the string u5")
        let elsewhere = change("notes/a", before: nil, after: ["owner": .string("u1")])
        #expect(candidates(index, elsewhere) == ["other"])

        index.remove(views[3], plan: IndexPlan(query: query("rooms", where: equals("owner", .string("u3")))))
        #expect(candidates(index, moved) == ["owner7", "scan"])
    }

    @Test func collectionGroupViewsAreFoundUnderAnyParent() {
        var index = TargetIndex<Item>()
        var group = query("messages")
        group.allDescendants = true
        let item = Item("group")
        index.insert(item, plan: IndexPlan(query: group))
        #expect(candidates(index, change("rooms/r/messages/m", before: nil, after: [:])) == ["group"])
        #expect(candidates(index, change("messages/m", before: nil, after: [:])) == ["group"])
        #expect(candidates(index, change("rooms/r", before: nil, after: [:])).isEmpty)
        index.remove(item, plan: IndexPlan(query: group))
        #expect(index.isEmpty)
    }
}
