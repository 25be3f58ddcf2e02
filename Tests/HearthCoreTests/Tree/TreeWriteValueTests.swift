import Testing

@testable import HearthCore

@Suite struct TreeWriteValueTests {
    @Test func nullsAndEmptyObjectsDisappear() throws {
        #expect(node("null") == nil)
        #expect(node("{}") == nil)
        #expect(node(#"{"a":null,"b":{}}"#) == nil)
        #expect(node(#"{"a":null,"b":{"c":{}} ,"d":1}"#)?.json() == js(#"{"d":1}"#))
    }

    @Test func arraysBecomeObjectsKeyedByIndexAndReadBackAsArrays() throws {
        let value = try #require(node(#"[1,null,"x",[true]]"#))
        #expect(value.json(.export) == js(#"{"0":1,"2":"x","3":{"0":true}}"#))
        #expect(value.json() == js(#"[1,null,"x",[true]]"#))
    }

    @Test(arguments: [
        (#"{"0":1,"1":2}"#, #"[1,2]"#),
        (#"{"0":1,"3":2}"#, #"[1,null,null,2]"#),
        (#"{"0":1,"4":2}"#, #"{"0":1,"4":2}"#),
        (#"{"1":1}"#, #"[null,1]"#),
        (#"{"01":1,"1":2}"#, #"{"01":1,"1":2}"#),
        (#"{"-1":1}"#, #"{"-1":1}"#),
    ])
    func usesFirebasesArrayHeuristic(_ input: String, _ output: String) {
        #expect(node(input)?.json() == js(output))
    }

    @Test func readsPrioritiesAndValueWrappers() throws {
        let value = try #require(node(#"{".priority":1,"a":{".value":"x",".priority":"p"},"b":{".value":{"c":1}}}"#))
        #expect(value.priority == .integer(1))
        #expect(value.children["a"] == .leaf(.string("x"), priority: .string("p")))
        #expect(value.children["b"]?.json() == js(#"{"c":1}"#))
        #expect(value.json(.export) == js(#"{".priority":1,"a":{".value":"x",".priority":"p"},"b":{"c":1}}"#))
        #expect(node(#"{".priority":5}"#) == nil, "a priority alone is an empty node")
    }

    @Test(arguments: [
        #"{"a.b":1}"#, #"{"a":{"$x":1}}"#, #"{".priority":true,"a":1}"#, #"{".value":1,"x":2}"#,
        #"{".sv":"timestamp","x":1}"#, #"{".sv":"nope"}"#, #"{".sv":{"increment":"1"}}"#, #"{".sv":{"decrement":1}}"#,
        #"{".foo":1}"#,
    ])
    func rejectsInvalidData(_ text: String) {
        #expect(throws: HearthError.self) { try TreeWriteValue(json: js(text), at: .root) }
    }

    @Test func limitsDepthToThirtyTwoCountingTheLocation() throws {
        func nested(_ levels: Int) -> String {
            String(repeating: #"{"k":"#, count: levels) + "1" + String(repeating: "}", count: levels)
        }
        #expect(throws: Never.self) { try TreeWriteValue(json: js(nested(32)), at: .root) }
        #expect(throws: HearthError.self) { try TreeWriteValue(json: js(nested(33)), at: .root) }
        #expect(throws: Never.self) { try TreeWriteValue(json: js(nested(30)), at: tp("/a/b")) }
        #expect(throws: HearthError.self) { try TreeWriteValue(json: js(nested(31)), at: tp("/a/b")) }
    }

    @Test func resolvesServerValuesWhereTheySit() throws {
        let value = try TreeWriteValue(
            json: js(
                #"{"t":{".sv":"timestamp"},"c":{"n":{".sv":{"increment":2}}},"p":{".priority":1,"x":{".sv":{"increment":1.5}}}}"#
            ),
            at: tp("/w"))
        #expect(value.serverValues.count == 3)
        let resolved = value.resolved(nowMillis: 1_000) { path in
            path == tp("/c/n") ? .leaf(.integer(40)) : nil
        }
        #expect(resolved?.json(.export) == js(#"{"t":1000,"c":{"n":42},"p":{".priority":1,"x":1.5}}"#))
        let root = try TreeWriteValue(json: js(#"{".sv":{"increment":1}}"#), at: tp("/n"))
        #expect(root.resolved(nowMillis: 0) { _ in .leaf(.double(0.5)) } == .leaf(.double(1.5)))
    }

    @Test(arguments: [
        (TreeLeaf.integer(2), TreeNode?.none, TreeLeaf.integer(2)),
        (.integer(2), .leaf(.integer(3)), .integer(5)),
        (.integer(2), .leaf(.double(0.25)), .double(2.25)),
        (.double(0.5), .leaf(.integer(1)), .double(1.5)),
        (.integer(1), .leaf(.string("x")), .integer(1)),
        (.integer(1), .leaf(.integer(Int64.max)), .double(Double(Int64.max) + 1)),
        (.integer(-1), .leaf(.integer(Int64.min)), .double(Double(Int64.min) - 1)),
    ])
    func increments(_ delta: TreeLeaf, _ current: TreeNode?, _ expected: TreeLeaf) {
        #expect(ServerValue.increment(delta).resolve(nowMillis: 0, current: current) == expected)
    }

    @Test func incrementOfAnObjectReplacesIt() {
        #expect(ServerValue.increment(.integer(3)).resolve(nowMillis: 0, current: node(#"{"a":1}"#)) == .integer(3))
    }
}
