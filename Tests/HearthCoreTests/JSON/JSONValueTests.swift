import HearthCore
import Testing

@Suite("JSONValue conveniences")
struct JSONValueTests {
    let document: JSONValue = [
        "name": "Ada", "age": 36, "ratio": 0.5, "admin": true, "manager": .null,
        "langs": ["en", "fr"], "address": ["city": "London"],
    ]

    @Test("subscripts return members and elements or nil")
    func subscripts() {
        #expect(document["name"] == "Ada")
        #expect(document["missing"] == nil)
        #expect(document["address"]?["city"] == "London")
        #expect(document["langs"]?[1] == "fr")
        #expect(document["langs"]?[2] == nil)
        #expect(document["langs"]?[-1] == nil)
        #expect(document[0] == nil)
        #expect(JSONValue.string("x")["a"] == nil)
    }

    @Test("typed accessors")
    func accessors() {
        #expect(document["name"]?.stringValue == "Ada")
        #expect(document["age"]?.stringValue == nil)
        #expect(document["admin"]?.boolValue == true)
        #expect(document["age"]?.boolValue == nil)
        #expect(document["age"]?.int64Value == 36)
        #expect(document["ratio"]?.int64Value == nil)
        #expect(JSONValue.double(3).int64Value == nil)
        #expect(document["age"]?.doubleValue == 36)
        #expect(document["ratio"]?.doubleValue == 0.5)
        #expect(document["name"]?.doubleValue == nil)
        #expect(document["langs"]?.arrayValue == ["en", "fr"])
        #expect(document["address"]?.objectValue == ["city": "London"])
        #expect(document["address"]?.arrayValue == nil)
        #expect(document["manager"]?.isNull == true)
        #expect(document["name"]?.isNull == false)
    }

    @Test("literals build the matching cases")
    func literals() {
        let value: JSONValue = [true, 1, 1.5, "s", [:], []]
        #expect(value == .array([.bool(true), .integer(1), .double(1.5), .string("s"), .object([:]), .array([])]))
        let duplicate: JSONValue = ["a": 1, "a": 2]
        #expect(duplicate == ["a": 2])
    }

    @Test("equal values hash equally")
    func hashing() throws {
        let a = try JSONParser.parse(#"{"x":[1,2],"y":{"z":null}}"#)
        let b = try JSONParser.parse(#"{ "y" : { "z" : null } , "x" : [ 1 , 2 ] }"#)
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(JSONValue.integer(1) != JSONValue.double(1))
    }
}
