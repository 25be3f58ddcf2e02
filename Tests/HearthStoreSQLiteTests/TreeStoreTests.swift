import Foundation
import HearthCore
import HearthSQLite
import HearthStore
import Synchronization
import Testing

@testable import HearthStoreSQLite

@Suite("Tree engine")
struct TreeStoreTests {
    @Test("PUT then GET returns the value at every level; missing locations are null")
    func putAndRead() async throws {
        let t = try TemporaryTree()
        try await t.tree.put("/users/ada", #"{"name":"Ada","age":36,"admin":true,"score":1.5,"tags":{"x":"y"}}"#)
        #expect(
            try t.tree.value("/users/ada")
                == json(#"{"name":"Ada","age":36,"admin":true,"score":1.5,"tags":{"x":"y"}}"#))
        #expect(
            try t.tree.value("/users")
                == json(#"{"ada":{"name":"Ada","age":36,"admin":true,"score":1.5,"tags":{"x":"y"}}}"#))
        #expect(try t.tree.value("/users/ada/tags/x") == .string("y"))
        #expect(try t.tree.value("/users/ada/age") == .integer(36))
        #expect(try t.tree.value("/users/bob") == .null)
        #expect(try t.tree.value("/users/ada/name/deeper") == .null)
    }

    @Test("PUT replaces the whole subtree; writing below a leaf turns it into an object")
    func putReplaces() async throws {
        let t = try TemporaryTree()
        try await t.tree.put("/a", #"{"b":{"c":1,"d":2},"e":3}"#)
        try await t.tree.put("/a/b", #"{"z":9}"#)
        #expect(try t.tree.value("/a") == json(#"{"b":{"z":9},"e":3}"#))
        try await t.tree.put("/a/e/f/g", "true")
        #expect(try t.tree.value("/a") == json(#"{"b":{"z":9},"e":{"f":{"g":true}}}"#))
        try await t.tree.put("/a", "\"leaf\"")
        #expect(try t.tree.value("/a") == .string("leaf"))
        #expect(try t.tree.value("/a/b") == .null)
    }

    @Test("deleting the last child removes empty parents and their priorities")
    func deletePrunesParents() async throws {
        let t = try TemporaryTree()
        try await t.tree.put("/p", #"{"q":{".priority":5,"r":{"s":1}},"keep":1}"#)
        try await t.tree.put("/p/q/r/s", "null")
        #expect(try t.tree.value("/p", .export) == json(#"{"keep":1}"#))
        // The pruned node's priority must not come back when the node is written again.
        try await t.tree.put("/p/q/t", "1")
        #expect(try t.tree.value("/p/q", .export) == json(#"{"t":1}"#))
        try await t.tree.put("/p", "null")
        #expect(try t.tree.value("/") == .null)
    }

    @Test("deleting below a leaf leaves the leaf and its priority alone")
    func deleteBelowALeaf() async throws {
        let t = try TemporaryTree()
        try await t.tree.put("/a", #"{".value":5,".priority":1}"#)
        try await t.tree.put("/a/b/c", "null")
        #expect(try t.tree.value("/a", .export) == json(#"{".value":5,".priority":1}"#))
        try await t.tree.patch("/a", #"{"x":null}"#)
        #expect(try t.tree.value("/a", .export) == json(#"{".value":5,".priority":1}"#))
    }

    @Test("priorities of leaves and objects round-trip in the export format")
    func priorities() async throws {
        let t = try TemporaryTree()
        try await t.tree.put(
            "/x", #"{".priority":"top","a":{".value":1,".priority":2},"b":{"-c":1,".priority":1.5,"z":2}}"#)
        #expect(
            try t.tree.value("/x", .export)
                == json(#"{".priority":"top","a":{".value":1,".priority":2},"b":{"-c":1,".priority":1.5,"z":2}}"#))
        #expect(try t.tree.value("/x") == json(#"{"a":1,"b":{"-c":1,"z":2}}"#))
        #expect(try t.tree.value("/x/a", .export) == json(#"{".value":1,".priority":2}"#))
        // Writing below a leaf with a priority keeps the priority on the new object.
        try await t.tree.put("/x/a/child", "true")
        #expect(try t.tree.value("/x/a", .export) == json(#"{".priority":2,"child":true}"#))
    }

    @Test("arrays are stored as objects and read back as arrays")
    func arrays() async throws {
        let t = try TemporaryTree()
        try await t.tree.put("/list", #"["a","b",null,"d"]"#)
        #expect(try t.tree.value("/list") == json(#"["a","b",null,"d"]"#))
        #expect(try t.tree.value("/list", .export) == json(#"{"0":"a","1":"b","3":"d"}"#))
        try await t.tree.put("/sparse", #"{"0":1,"9":2}"#)
        #expect(try t.tree.value("/sparse") == json(#"{"0":1,"9":2}"#))
    }

    @Test("a multi-path PATCH applies every path in one change, server values against the old data")
    func patch() async throws {
        let t = try TemporaryTree()
        try await t.tree.put("/r", #"{"a":{"b":1,"keep":true},"c":{"d":1},"n":10}"#)
        let outcome = try await t.tree.patch(
            "/r", #"{"a/b":2,"c":null,"e/f":"new","n":{".sv":{"increment":5}}}"#)
        #expect(try t.tree.value("/r") == json(#"{"a":{"b":2,"keep":true},"e":{"f":"new"},"n":15}"#))
        let change = try #require(outcome.change)
        #expect(change.kind == .patch)
        #expect(change.path == treePath("/r"))
        #expect(Set(change.updates.map(\.path.description)) == ["/a/b", "/c", "/e/f", "/n"])
        #expect(change.updates.first { $0.path == treePath("/n") }?.node == .leaf(.integer(15)))
    }

    @Test("server values: timestamp in ms at commit time; increment of integers, doubles, missing and non-numbers")
    func serverValues() async throws {
        let t = try TemporaryTree()
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        try await t.tree.put("/s", #"{"t":{".sv":"timestamp"},"i":{".sv":{"increment":2}},"s":"x"}"#)
        let after = Int64(Date().timeIntervalSince1970 * 1000)
        let stamp = try #require(try t.tree.value("/s/t").int64Value)
        #expect(stamp >= before && stamp <= after)
        #expect(try t.tree.value("/s/i") == .integer(2))
        try await t.tree.put("/s/i", #"{".sv":{"increment":3}}"#)
        #expect(try t.tree.value("/s/i") == .integer(5))
        try await t.tree.put("/s/i", #"{".sv":{"increment":0.5}}"#)
        #expect(try t.tree.value("/s/i") == .double(5.5))
        try await t.tree.put("/s/s", #"{".sv":{"increment":1}}"#)
        #expect(try t.tree.value("/s/s") == .integer(1))
        try await t.tree.put("/s/big", "9223372036854775807")
        try await t.tree.put("/s/big", #"{".sv":{"increment":1}}"#)
        #expect(try t.tree.value("/s/big") == .double(9_223_372_036_854_775_808.0))
    }

    @Test("if-match: a stale ETag writes nothing and returns the current value and ETag; a fresh one commits")
    func conditionalWrites() async throws {
        let t = try TemporaryTree()
        try await t.tree.put("/c", #"{"n":1}"#)
        let current = try t.tree.read("ns", at: treePath("/c"), auth: nil).node
        let etag = TreeETag.of(current)
        let stale = try await t.tree.put("/c", #"{"n":2}"#, ifMatch: "stale")
        #expect(stale == .preconditionFailed(current: current, etag: etag))
        #expect(try t.tree.value("/c") == json(#"{"n":1}"#))
        let fresh = try await t.tree.put("/c", #"{"n":2}"#, ifMatch: etag)
        #expect(fresh.change != nil)
        #expect(try t.tree.value("/c") == json(#"{"n":2}"#))
        // The ETag of a missing location is the ETag of null.
        let missing = try await t.tree.put("/none", "1", ifMatch: TreeETag.of(nil))
        #expect(missing.change != nil)
    }

    @Test("shallow: leaf values, or the keys of children only")
    func shallow() async throws {
        let t = try TemporaryTree()
        try await t.tree.put("/h", #"{"a":{"deep":{"x":1}},"a b":2,"b":{".priority":1,"y":true},"c":"leaf"}"#)
        #expect(try t.tree.shallow("ns", at: treePath("/h"), auth: nil) == .children(["a", "a b", "b", "c"]))
        #expect(try t.tree.shallow("ns", at: treePath("/h/c"), auth: nil) == .leaf(.string("leaf")))
        #expect(try t.tree.shallow("ns", at: treePath("/nothing"), auth: nil) == .missing)
    }

    @Test("namespaces are separate trees; a root PUT in one leaves the other alone")
    func namespaces() async throws {
        let t = try TemporaryTree()
        try await t.tree.put("/k", "1", ns: "one")
        try await t.tree.put("/k", "2", ns: "two")
        try await t.tree.put("/", "null", ns: "one")
        #expect(try t.tree.value("/", ns: "one") == .null)
        #expect(try t.tree.value("/", ns: "two") == json(#"{"k":2}"#))
    }

    @Test("the change log keeps each write in commit order, readable after reopening, and the feed delivers the same")
    func changeLog() async throws {
        let t = try TemporaryTree()
        let received = TreeLocked<[TreeChange]>([])
        let subscription = t.tree.treeFeed.subscribe { changes in received.withLock { $0 += changes } }
        defer { subscription.cancel() }
        let start = try t.tree.read("ns", at: .root, auth: nil).sequence
        try await t.tree.put("/l/a", "1")
        try await t.tree.patch("/l", #"{"b":{"c":[1,2]},"a":null}"#)
        try await t.tree.put("/l", #"{".priority":3,"x":{".value":"v",".priority":"p"}}"#)
        let logged = try t.tree.treeChanges(after: start, limit: 10)
        #expect(logged.count == 3)
        #expect(logged.map(\.sequence) == logged.map(\.sequence).sorted())
        #expect(received.value == logged)
        #expect(try t.tree.read("ns", at: .root, auth: nil).sequence == logged.last?.sequence)
        try t.temporary.reopen()
        let reopened = SQLiteTreeStore(store: t.temporary.store)
        #expect(try reopened.treeChanges(after: start, limit: 10) == logged)
        #expect(try reopened.value("/l", .export) == json(#"{".priority":3,"x":{".value":"v",".priority":"p"}}"#))
    }

    @Test("subtree reads, PUTs and emptiness checks are key-range searches on the primary key, never scans")
    func rangeAccess() throws {
        let t = try TemporaryTree()
        let key = TreeKeyCodec.key("ns", treePath("/a/b"))
        let end = TreeKeyCodec.subtreeEnd(key)
        let plans = try t.temporary.store.withReader { db -> [String] in
            let queries: [SQLQuery] = [
                "EXPLAIN QUERY PLAN SELECT key, value FROM tree_nodes WHERE key >= \(key) AND key < \(end) ORDER BY key",
                "EXPLAIN QUERY PLAN DELETE FROM tree_nodes WHERE key >= \(key) AND key < \(end)",
                "EXPLAIN QUERY PLAN SELECT key FROM tree_nodes WHERE key > \(key) AND key < \(end) ORDER BY key LIMIT 1",
            ]
            return try queries.map { query in try db.fetchAll(query).map { $0.string(3) ?? "" }.joined(separator: "; ")
            }
        }
        for plan in plans {
            #expect(plan.contains("SEARCH tree_nodes USING PRIMARY KEY (key>? AND key<?)"), "\(plan)")
        }
    }
}

/// A value shared between concurrent callbacks.
final class TreeLocked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value { mutex.withLock { $0 } }
    @discardableResult
    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result { mutex.withLock { body(&$0) } }
}
