import Foundation
import HearthCore
import Testing

@testable import Hearth

/// How queued tree writes are applied locally, before the server has them.
@Suite("Tree writes applied locally")
struct TreeLocalViewTests {
    private func write(_ method: String, _ path: String, _ body: String, millis: Int64 = 1_000) throws -> TreeLocalWrite
    {
        TreeLocalWrite(
            id: 1, writeID: "w", method: method, path: path.split(separator: "/").map(String.init),
            body: try JSONParser.parse(body), localMillis: millis)
    }

    private func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    @Test func writesAtBelowAndAboveTheLocation() throws {
        let base = try json(#"{"a":1,"b":{"c":2}}"#)
        let location = ["root"]
        #expect(
            TreeLocalView.apply([try write("PUT", "root/b/c", "3")], to: base, at: location)
                == (try json(#"{"a":1,"b":{"c":3}}"#)))
        #expect(
            TreeLocalView.apply([try write("PUT", "", #"{"root":{"x":true}}"#)], to: base, at: location)
                == (try json(#"{"x":true}"#)))
        #expect(
            TreeLocalView.apply([try write("DELETE", "root/b", "null")], to: base, at: location)
                == (try json(#"{"a":1}"#)))
        #expect(TreeLocalView.apply([try write("PUT", "other", "5")], to: base, at: location) == base)
        let patch = try write("PATCH", "root", #"{"a":null,"b/d":4}"#)
        #expect(TreeLocalView.apply([patch], to: base, at: location) == (try json(#"{"b":{"c":2,"d":4}}"#)))
    }

    @Test func serverValuesAreEstimatedInOrder() throws {
        let writes = [
            try write("PUT", "n", #"{".sv":{"increment":2}}"#),
            try write("PUT", "n", #"{".sv":{"increment":1.5}}"#),
            try write("PATCH", "", #"{"t":{".sv":"timestamp"},"m":{".sv":{"increment":7}}}"#, millis: 42),
        ]
        let view = TreeLocalView.apply(writes, to: try json(#"{"n":1,"m":"text"}"#), at: [])
        #expect(view == (try json(#"{"n":4.5,"m":7,"t":42}"#)), "a non-number counts as absent")
        let overflow = TreeLocalView.apply(
            [try write("PUT", "", #"{".sv":{"increment":1}}"#)], to: .integer(.max), at: [])
        #expect(overflow == .double(Double(Int64.max) + 1))
    }

    @Test func prioritiesAndNullsReadBackAsTheServerStoresThem() throws {
        let value = try json(#"{".priority":1,"a":{".value":"x",".priority":2},"b":null,"c":{"d":null}}"#)
        #expect(TreeLocalView.plain(value) == (try json(#"{"a":"x"}"#)))
        let ack = try write("PATCH", "p", #"{"a/b":1}"#)
        let sets = ack.acknowledgedSets(answer: try json(#"{"a/b":1,"c":{".priority":3,"d":2}}"#))
        #expect(
            sets.map(\.path) == [["p", "a", "b"], ["p", "c"]] || sets.map(\.path) == [["p", "c"], ["p", "a", "b"]])
        #expect(sets.first { $0.path == ["p", "c"] }?.value == (try json(#"{"d":2}"#)))
    }

    @Test func queryWindowsOrderBoundAndLimitAsTheServerDoes() throws {
        let scores = try json(#"{"a":{"s":3},"b":{"s":1},"c":{"s":2},"d":{"x":0},"10":{"s":5},"9":{"s":5}}"#)
        func window(_ parameters: [(String, String)]) throws -> TreeQueryWindow {
            try #require(TreeQueryWindow(parameters: parameters))
        }
        #expect(TreeQueryWindow(parameters: []) == nil, "a plain location has no window")
        let lastTwo = try window([("orderBy", #""s""#), ("limitToLast", "2")])
        #expect(lastTwo.apply(scores) == (try json(#"{"10":{"s":5},"9":{"s":5}}"#)), "ties ordered by key")
        let range = try window([("orderBy", #""s""#), ("startAt", "2"), ("endAt", "3")])
        #expect(range.apply(scores) == (try json(#"{"a":{"s":3},"c":{"s":2}}"#)))
        let missing = try window([("orderBy", #""s""#), ("limitToFirst", "1")])
        #expect(missing.apply(scores) == (try json(#"{"d":{"x":0}}"#)), "a missing value orders first")
        let keys = try window([("orderBy", #""$key""#), ("limitToFirst", "2")])
        #expect(keys.apply(scores) == (try json(#"{"9":{"s":5},"10":{"s":5}}"#)), "integer keys first, numerically")
        let equal = try window([("orderBy", #""s""#), ("equalTo", "1")])
        #expect(equal.apply(scores) == (try json(#"{"b":{"s":1}}"#)))
        #expect(equal.apply(.integer(4)) == .integer(4), "a leaf is not a list")
    }
}
