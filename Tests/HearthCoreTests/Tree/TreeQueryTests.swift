import Testing

@testable import HearthCore

@Suite struct TreeQueryTests {
    /// Children covering every type, for the value orders.
    let mixed = node(
        #"""
        {"n":{"w":1},"f":{"v":false},"t":{"v":true},"i":{"v":-3},"d":{"v":2.5},"big":{"v":10},
         "s":{"v":"apple"},"S":{"v":"Banana"},"o":{"v":{"x":1}},"o2":{"v":{"a":1}}}
        """#)

    func keys(_ query: TreeQuery, _ data: TreeNode?) -> [String] { query.window(of: data).map(\.key) }

    @Test func ordersByChildAcrossTypesThenByKey() {
        let query = TreeQuery(order: .child(tp("v")))
        #expect(keys(query, mixed) == ["n", "f", "t", "i", "d", "big", "S", "s", "o", "o2"])
    }

    @Test func ordersByNestedChildPaths() {
        let data = node(#"{"a":{"p":{"q":3}},"b":{"p":{"q":1}},"c":{"p":2}}"#)
        #expect(keys(TreeQuery(order: .child(tp("p/q"))), data) == ["c", "b", "a"])
    }

    @Test func ordersByValueAndByKey() {
        let data = node(#"{"x":3,"y":1,"z":"a","10":0,"9":true,"-1":null}"#)
        #expect(keys(TreeQuery(order: .value), data) == ["9", "10", "y", "x", "z"])
        #expect(keys(TreeQuery(order: .key), data) == ["9", "10", "x", "y", "z"])
    }

    @Test func ordersByPriorityNoneThenNumbersThenStrings() {
        let data = node(
            #"{"a":{".value":1,".priority":"b"},"b":{".value":1,".priority":2},"c":1,"d":{".value":1,".priority":"a"},"e":{".value":1,".priority":-1.5}}"#
        )
        #expect(keys(TreeQuery(order: .priority), data) == ["c", "e", "b", "d", "a"])
        let bounded = TreeQuery(order: .priority, start: .init(value: .integer(0)), end: .init(value: .string("a")))
        #expect(keys(bounded, data) == ["b", "d"])
    }

    @Test func appliesInclusiveAndExclusiveBounds() {
        let query = TreeQuery(
            order: .child(tp("v")), start: .init(value: .integer(-3)), end: .init(value: .integer(10)))
        #expect(keys(query, mixed) == ["i", "d", "big"])
        let after = TreeQuery(
            order: .child(tp("v")), start: .init(value: .integer(-3), inclusive: false),
            end: .init(value: .string("apple"), inclusive: false))
        #expect(keys(after, mixed) == ["d", "big", "S"])
        let nulls = TreeQuery(order: .child(tp("v")), start: .init(value: nil), end: .init(value: nil))
        #expect(keys(nulls, mixed) == ["n"])
    }

    @Test func tieBreaksWithTheKeyArgument() {
        let data = node(#"{"a":1,"b":1,"c":1,"d":2}"#)
        let from = TreeQuery(order: .value, start: .init(value: .integer(1), key: "b"))
        #expect(keys(from, data) == ["b", "c", "d"])
        let to = TreeQuery(order: .value, end: .init(value: .integer(1), key: "b"))
        #expect(keys(to, data) == ["a", "b"])
        let equal = TreeQuery(
            order: .value, start: .init(value: .integer(1), key: "b"), end: .init(value: .integer(1), key: "b"))
        #expect(keys(equal, data) == ["b"])
        let after = TreeQuery(order: .value, start: .init(value: .integer(1), key: "b", inclusive: false))
        #expect(keys(after, data) == ["c", "d"])
    }

    @Test func limitsToFirstAndLastAfterTheRange() {
        let data = node(#"{"a":1,"b":2,"c":3,"d":4,"e":5}"#)
        #expect(keys(TreeQuery(order: .value, limit: .first(2)), data) == ["a", "b"])
        #expect(keys(TreeQuery(order: .value, limit: .last(2)), data) == ["d", "e"])
        #expect(
            keys(TreeQuery(order: .value, start: .init(value: .integer(2)), limit: .last(10)), data) == [
                "b", "c", "d", "e",
            ])
        #expect(keys(TreeQuery(order: .key, end: .init(value: .string("c")), limit: .last(2)), data) == ["b", "c"])
        #expect(TreeQuery(order: .key).window(of: .leaf(.integer(1))).isEmpty)
        #expect(TreeQuery(order: .key, limit: .first(1)).filtered(nil) == nil)
    }

    @Test func parsesRESTParameters() throws {
        let query = try #require(
            try TreeQuery.parse(rest: ["orderBy": #""a/b""#, "startAt": "5", "endAt": #""z","k1""#, "limitToLast": "3"])
        )
        #expect(query.order == .child(tp("a/b")))
        #expect(query.start == .init(value: .integer(5)))
        #expect(query.end == .init(value: .string("z"), key: "k1"))
        #expect(query.limit == .last(3))
        let equal = try #require(try TreeQuery.parse(rest: ["orderBy": #""$value""#, "equalTo": #""a,b""#]))
        #expect(equal.start == .init(value: .string("a,b")) && equal.end == equal.start)
        #expect(try TreeQuery.parse(rest: ["print": "pretty"]) == nil)
        #expect(try TreeQuery.parse(rest: ["orderBy": #""$key""#])?.order == .key)
        let after = try #require(
            try TreeQuery.parse(rest: ["orderBy": #""$priority""#, "startAfter": "null", "endBefore": "2"]))
        #expect(
            after.start == .init(value: nil, inclusive: false)
                && after.end == .init(value: .integer(2), inclusive: false))
    }

    @Test(arguments: [
        (["limitToFirst": "1"], "orderBy must be defined"),
        (["orderBy": "age"], "orderBy must be a valid JSON encoded path"),
        (["orderBy": #""a.b""#], "orderBy must be a valid JSON encoded path"),
        (["orderBy": #""$key""#, "startAt": "1"], "$key"),
        (["orderBy": #""$priority""#, "startAt": "true"], "valid priority"),
        (["orderBy": #""x""#, "startAt": #"{"a":1}"#], "JSON primitive"),
        (["orderBy": #""x""#, "startAt": "nope"], "JSON primitive"),
        (["orderBy": #""x""#, "limitToFirst": "0"], "positive integer"),
        (["orderBy": #""x""#, "limitToFirst": "1", "limitToLast": "1"], "cannot both"),
        (["orderBy": #""x""#, "equalTo": "1", "startAt": "0"], "equalTo cannot be combined"),
        (["orderBy": #""x""#, "startAt": "1", "startAfter": "0"], "cannot both"),
    ])
    func rejectsBadRESTParameters(_ parameters: [String: String], _ message: String) {
        #expect {
            _ = try TreeQuery.parse(rest: parameters)
        } throws: { error in
            (error as? HearthError)?.message.contains(message) == true
        }
    }
}
