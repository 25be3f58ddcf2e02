import Foundation
import HearthCore
import HearthStore
import Testing

/// Tree writes: what each operation leaves in the tree.
let treeWriteChecks: [TreeConformanceCheck] = [
    TreeConformanceCheck("PUT replaces the whole subtree; writing below a leaf turns it into an object") { tree in
        try await tree.put("/a", #"{"b":{"c":1,"d":2},"e":3}"#)
        try await tree.put("/a/b", #"{"z":9}"#)
        #expect(try tree.value("/a") == json(#"{"b":{"z":9},"e":3}"#))
        try await tree.put("/a/e/f/g", "true")
        #expect(try tree.value("/a") == json(#"{"b":{"z":9},"e":{"f":{"g":true}}}"#))
        try await tree.put("/a", "\"leaf\"")
        #expect(try tree.value("/a") == .string("leaf"))
        #expect(try tree.value("/a/b") == .null)
    },
    TreeConformanceCheck("deleting the last child removes empty parents and their priorities") { tree in
        try await tree.put("/p", #"{"q":{".priority":5,"r":{"s":1}},"keep":1}"#)
        try await tree.put("/p/q/r/s", "null")
        #expect(try tree.value("/p", .export) == json(#"{"keep":1}"#))
        // The pruned node's priority must not come back when the node is written again.
        try await tree.put("/p/q/t", "1")
        #expect(try tree.value("/p/q", .export) == json(#"{"t":1}"#))
        try await tree.put("/p", "null")
        #expect(try tree.value("/") == .null)
    },
    TreeConformanceCheck("deleting below a leaf leaves the leaf and its priority alone") { tree in
        try await tree.put("/a", #"{".value":5,".priority":1}"#)
        try await tree.put("/a/b/c", "null")
        #expect(try tree.value("/a", .export) == json(#"{".value":5,".priority":1}"#))
        try await tree.patch("/a", #"{"x":null}"#)
        #expect(try tree.value("/a", .export) == json(#"{".value":5,".priority":1}"#))
    },
    TreeConformanceCheck("priorities of leaves and objects round-trip in the export format") { tree in
        try await tree.put(
            "/x", #"{".priority":"top","a":{".value":1,".priority":2},"b":{"-c":1,".priority":1.5,"z":2}}"#)
        #expect(
            try tree.value("/x", .export)
                == json(#"{".priority":"top","a":{".value":1,".priority":2},"b":{"-c":1,".priority":1.5,"z":2}}"#))
        #expect(try tree.value("/x") == json(#"{"a":1,"b":{"-c":1,"z":2}}"#))
        #expect(try tree.value("/x/a", .export) == json(#"{".value":1,".priority":2}"#))
        #expect(try tree.priority("ns", at: treePath("/x/b")) == .double(1.5))
        #expect(try tree.priority("ns", at: treePath("/x/b/z")) == nil)
        // Writing below a leaf with a priority keeps the priority on the new object.
        try await tree.put("/x/a/child", "true")
        #expect(try tree.value("/x/a", .export) == json(#"{".priority":2,"child":true}"#))
    },
    TreeConformanceCheck("arrays are stored as objects and read back as arrays") { tree in
        try await tree.put("/list", #"["a","b",null,"d"]"#)
        #expect(try tree.value("/list") == json(#"["a","b",null,"d"]"#))
        #expect(try tree.value("/list", .export) == json(#"{"0":"a","1":"b","3":"d"}"#))
        try await tree.put("/sparse", #"{"0":1,"9":2}"#)
        #expect(try tree.value("/sparse") == json(#"{"0":1,"9":2}"#))
    },
    TreeConformanceCheck("leaves keep their type and exact value: integers at the limits, doubles, -0, unicode") {
        tree in
        let text =
            #"{"max":9223372036854775807,"min":-9223372036854775808,"third":0.3333333333333333,"#
            + #""tiny":5e-324,"negzero":-0.0,"s":"naïve ✓ 🔥","t":true,"f":false}"#
        try await tree.put("/v", text)
        let read = try tree.value("/v")
        #expect(read == json(text))
        #expect(try tree.value("/v/max") == .integer(.max))
        #expect(try tree.value("/v/min") == .integer(.min))
        let zero = try #require(try tree.value("/v/negzero").doubleValue)
        #expect(zero == 0 && zero.sign == .minus)
        #expect(try tree.value("/v/tiny").doubleValue == .leastNonzeroMagnitude)
    },
    TreeConformanceCheck("a multi-path PATCH applies every path in one change, server values against the old data") {
        tree in
        try await tree.put("/r", #"{"a":{"b":1,"keep":true},"c":{"d":1},"n":10}"#)
        let outcome = try await tree.patch("/r", #"{"a/b":2,"c":null,"e/f":"new","n":{".sv":{"increment":5}}}"#)
        #expect(try tree.value("/r") == json(#"{"a":{"b":2,"keep":true},"e":{"f":"new"},"n":15}"#))
        let change = try #require(outcome.change)
        #expect(change.kind == .patch)
        #expect(change.path == treePath("/r"))
        #expect(Set(change.updates.map(\.path.description)) == ["/a/b", "/c", "/e/f", "/n"])
        #expect(change.updates.first { $0.path == treePath("/n") }?.node == .leaf(.integer(15)))
    },
    TreeConformanceCheck("server values: timestamp in ms at commit time; increment of integers, doubles, non-numbers") {
        tree in
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        try await tree.put("/s", #"{"t":{".sv":"timestamp"},"i":{".sv":{"increment":2}},"s":"x"}"#)
        let after = Int64(Date().timeIntervalSince1970 * 1000)
        let stamp = try #require(try tree.value("/s/t").int64Value)
        #expect(stamp >= before && stamp <= after)
        #expect(try tree.value("/s/i") == .integer(2))
        try await tree.put("/s/i", #"{".sv":{"increment":3}}"#)
        #expect(try tree.value("/s/i") == .integer(5))
        try await tree.put("/s/i", #"{".sv":{"increment":0.5}}"#)
        #expect(try tree.value("/s/i") == .double(5.5))
        try await tree.put("/s/s", #"{".sv":{"increment":1}}"#)
        #expect(try tree.value("/s/s") == .integer(1))
        try await tree.put("/s/big", "9223372036854775807")
        try await tree.put("/s/big", #"{".sv":{"increment":1}}"#)
        #expect(try tree.value("/s/big") == .double(9_223_372_036_854_775_808.0))
    },
    TreeConformanceCheck("if-match: a stale ETag writes nothing and returns the current value and ETag") { tree in
        try await tree.put("/c", #"{"n":1}"#)
        let current = try tree.read("ns", at: treePath("/c"), auth: nil).node
        let etag = TreeETag.of(current)
        let stale = try await tree.put("/c", #"{"n":2}"#, ifMatch: "stale")
        #expect(stale == .preconditionFailed(current: current, etag: etag))
        #expect(try tree.value("/c") == json(#"{"n":1}"#))
        let fresh = try await tree.put("/c", #"{"n":2}"#, ifMatch: etag)
        #expect(fresh.change != nil)
        #expect(try tree.value("/c") == json(#"{"n":2}"#))
        // The ETag of a missing location is the ETag of null.
        let missing = try await tree.put("/none", "1", ifMatch: TreeETag.of(nil))
        #expect(missing.change != nil)
    },
    TreeConformanceCheck("a judge that refuses applies nothing; one that sees the proposal lets it through") { tree in
        try await tree.put("/j", #"{"n":1}"#)
        var refused = TreeWrite(
            namespace: "ns", path: treePath("/j/n"),
            operation: .put(try TreeWriteValue(json: .integer(2), at: treePath("/j/n"))))
        refused.judge = { _ in false }
        #expect(try await tree.apply(refused).get() == .denied)
        #expect(try tree.value("/j") == json(#"{"n":1}"#))
        var allowed = refused
        allowed.judge = { proposal in proposal.path == treePath("/j/n") }
        #expect(try await tree.apply(allowed).get().change != nil)
        #expect(try tree.value("/j/n") == .integer(2))
    },
    TreeConformanceCheck("a write's idempotency key is recorded with its answer; a resend applies nothing") { tree in
        var write = TreeWrite(
            namespace: "ns", path: treePath("/once"),
            operation: .put(try TreeWriteValue(json: .integer(1), at: treePath("/once"))))
        write.receipt = WriteReceipt(id: "write-1") { change in Array("seq \(change.sequence)".utf8) }
        let change = try #require(try await tree.apply(write).get().change)
        #expect(try tree.recordedAnswer(forWriteID: "write-1") == Array("seq \(change.sequence)".utf8))
        #expect(try tree.recordedAnswer(forWriteID: "other") == nil)
        write.operation = .put(try TreeWriteValue(json: .integer(2), at: treePath("/once")))
        let again = await tree.apply(write)
        #expect(throws: HearthError.self) { try again.get() }
        #expect(try tree.value("/once") == .integer(1))
    },
]
