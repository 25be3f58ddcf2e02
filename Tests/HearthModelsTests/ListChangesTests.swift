import HearthModels
import Testing

/// The index sets a list view animates with turn the old list into the new one, whatever happened in between.
@Suite("List changes")
struct ListChangesTests {
    struct Row: Hashable {
        let key: Int
        let version: Int
    }

    static func changes(_ before: [Row], _ after: [Row]) -> ListChanges {
        ListChanges.between(before, after, key: \.key, version: \.version)
    }

    @Test("insert, delete, modify in place")
    func simple() {
        let before = [Row(key: 1, version: 0), Row(key: 2, version: 0), Row(key: 3, version: 0)]
        let after = [Row(key: 1, version: 0), Row(key: 3, version: 1), Row(key: 4, version: 0)]
        let changes = Self.changes(before, after)
        #expect(changes == ListChanges(insertions: [2], modifications: [2], deletions: [1]))
        #expect(changes.applied(to: before, from: after, key: \.key) == after)
    }

    @Test("a move is one deletion and one insertion, not a shift of everything between")
    func move() {
        let before = (0..<10).map { Row(key: $0, version: 0) }
        var after = before
        after.insert(after.remove(at: 8), at: 1)
        let changes = Self.changes(before, after)
        #expect(changes == ListChanges(insertions: [1], modifications: [], deletions: [8]))
        #expect(changes.applied(to: before, from: after, key: \.key) == after)
    }

    @Test("no change, empty lists")
    func nothing() {
        let rows = [Row(key: 1, version: 0)]
        #expect(Self.changes(rows, rows).isEmpty)
        #expect(Self.changes([], []).isEmpty)
        #expect(Self.changes([], rows) == ListChanges(insertions: [0], modifications: [], deletions: []))
        #expect(Self.changes(rows, []) == ListChanges(insertions: [], modifications: [], deletions: [0]))
    }

    @Test("random inserts, deletes, moves and edits", arguments: 0..<200)
    func random(seed: Int) {
        var generator = SplitMix(seed: UInt64(seed))
        let count = Int.random(in: 0...30, using: &generator)
        let before = (0..<count).map { Row(key: $0, version: 0) }
        var after = before.filter { _ in Int.random(in: 0..<5, using: &generator) != 0 }
        for _ in 0..<Int.random(in: 0...5, using: &generator) where !after.isEmpty {
            let moved = after.remove(at: Int.random(in: 0..<after.count, using: &generator))
            after.insert(moved, at: Int.random(in: 0...after.count, using: &generator))
        }
        for _ in 0..<Int.random(in: 0...5, using: &generator) {
            after.insert(
                Row(key: 100 + after.count, version: 0), at: Int.random(in: 0...after.count, using: &generator))
        }
        after = after.map { Int.random(in: 0..<4, using: &generator) == 0 ? Row(key: $0.key, version: 1) : $0 }
        let changes = Self.changes(before, after)
        #expect(changes.applied(to: before, from: after, key: \.key) == after)
        #expect(changes.deletions == changes.deletions.sorted() && changes.insertions == changes.insertions.sorted())
        #expect(changes.deletions.allSatisfy(before.indices.contains))
        #expect(changes.modifications.allSatisfy(before.indices.contains))
        #expect(changes.insertions.allSatisfy(after.indices.contains))
        #expect(Set(changes.modifications).isDisjoint(with: changes.deletions))
    }
}

/// A seeded generator, so a failing case can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
