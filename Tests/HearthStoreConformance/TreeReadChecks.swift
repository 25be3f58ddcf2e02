import HearthCore
import HearthStore
import Testing

/// Tree reads and the change log.
let treeReadChecks: [TreeConformanceCheck] = [
    TreeConformanceCheck("PUT then GET returns the value at every level; missing locations are null") { tree in
        try await tree.put("/users/ada", #"{"name":"Ada","age":36,"admin":true,"score":1.5,"tags":{"x":"y"}}"#)
        #expect(
            try tree.value("/users/ada") == json(#"{"name":"Ada","age":36,"admin":true,"score":1.5,"tags":{"x":"y"}}"#))
        #expect(
            try tree.value("/users")
                == json(#"{"ada":{"name":"Ada","age":36,"admin":true,"score":1.5,"tags":{"x":"y"}}}"#))
        #expect(try tree.value("/users/ada/tags/x") == .string("y"))
        #expect(try tree.value("/users/ada/age") == .integer(36))
        #expect(try tree.value("/users/bob") == .null)
        #expect(try tree.value("/users/ada/name/deeper") == .null)
    },
    TreeConformanceCheck("shallow: leaf values, or the keys of children only, a page at a time") { tree in
        try await tree.put("/h", #"{"a":{"deep":{"x":1}},"a b":2,"b":{".priority":1,"y":true},"c":"leaf"}"#)
        #expect(try tree.shallow("ns", at: treePath("/h"), auth: nil) == .children(["a", "a b", "b", "c"]))
        #expect(
            try tree.shallow("ns", at: treePath("/h"), after: "a", limit: 2, auth: nil) == .children(["a b", "b"]))
        #expect(try tree.shallow("ns", at: treePath("/h/c"), auth: nil) == .leaf(.string("leaf")))
        #expect(try tree.shallow("ns", at: treePath("/nothing"), auth: nil) == .missing)
    },
    TreeConformanceCheck("namespaces are separate trees; a root PUT in one leaves the other alone") { tree in
        try await tree.put("/k", "1", ns: "one")
        try await tree.put("/k", "2", ns: "two")
        try await tree.put("/", "null", ns: "one")
        #expect(try tree.value("/", ns: "one") == .null)
        #expect(try tree.value("/", ns: "two") == json(#"{"k":2}"#))
    },
    TreeConformanceCheck("the change log keeps each write in commit order and the feed delivers the same") { tree in
        let received = TreeLocked<[TreeChange]>([])
        let subscription = tree.treeFeed.subscribe { changes in received.withLock { $0 += changes } }
        defer { subscription.cancel() }
        let start = try tree.read("ns", at: .root, auth: nil).sequence
        #expect(try tree.treeHead() == start)
        try await tree.put("/l/a", "1")
        try await tree.patch("/l", #"{"b":{"c":[1,2]},"a":null}"#)
        try await tree.put("/l", #"{".priority":3,"x":{".value":"v",".priority":"p"}}"#)
        let logged = try tree.treeChanges(after: start, limit: 10)
        #expect(logged.count == 3)
        #expect(logged.map(\.sequence) == logged.map(\.sequence).sorted())
        #expect(received.value == logged)
        #expect(try tree.read("ns", at: .root, auth: nil).sequence == logged.last?.sequence)
        #expect(try tree.treeHead() == logged.last?.sequence)
        #expect(try tree.treeChanges(after: start, limit: 2) == Array(logged.prefix(2)))
        #expect(try tree.treeChanges(after: logged[1].sequence, limit: 10) == [logged[2]])
    },
    TreeConformanceCheck("writes refused by if-match or a judge leave no change in the log") { tree in
        try await tree.put("/z", "1")
        let head = try tree.treeHead()
        try await tree.put("/z", "2", ifMatch: "stale")
        var refused = TreeWrite(
            namespace: "ns", path: treePath("/z"),
            operation: .put(try TreeWriteValue(json: .integer(3), at: treePath("/z"))))
        refused.judge = { _ in false }
        _ = await tree.apply(refused)
        #expect(try tree.treeHead() == head)
        #expect(try tree.treeChanges(after: head, limit: 10).isEmpty)
    },
]
