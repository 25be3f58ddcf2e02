import HearthCore
import Testing

@Suite("JSON nesting depth")
struct JSONDepthTests {
    static func nestedArrays(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    static func nestedObjects(_ depth: Int) -> String {
        String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
    }

    @Test("512 levels parse, write and compare without exhausting the stack")
    func maximumDepth() throws {
        for text in [Self.nestedArrays(512), Self.nestedObjects(512)] {
            let value = try JSONParser.parse(text)
            #expect(jsonDepth(value) == 512)
            #expect(String(decoding: value.serialized(), as: UTF8.self) == text)
            #expect(try JSONParser.parse(value.serialized(pretty: true)) == value)
        }
    }

    @Test("513 levels are rejected at the bracket that goes too deep")
    func oneTooDeep() {
        let arrays = jsonParseError(Array(Self.nestedArrays(513).utf8))
        #expect(arrays == JSONError(offset: 512, line: 1, column: 513, reason: "Nesting deeper than 512 levels"))
        let objects = jsonParseError(Array(Self.nestedObjects(513).utf8))
        #expect(objects?.offset == 512 * 5)
        #expect(objects?.reason == "Nesting deeper than 512 levels")
    }

    @Test("100,000 open brackets give the depth error, not a crash")
    func hostileDepth() {
        let error = jsonParseError(Array(repeating: UInt8(ascii: "["), count: 100_000))
        #expect(error?.offset == 512)
        #expect(error?.reason == "Nesting deeper than 512 levels")
        let mixed = jsonParseError(Array(String(repeating: #"[{"k":"#, count: 50_000).utf8))
        #expect(mixed?.reason == "Nesting deeper than 512 levels")
    }

    @Test("maxDepth is configurable", arguments: [0, 1, 3, 1000])
    func configurable(limit: Int) throws {
        var options = JSONParser.Options()
        options.maxDepth = limit
        #expect(try JSONParser.parse("7", options: options) == 7)
        if limit > 0 {
            #expect(jsonDepth(try JSONParser.parse(Self.nestedArrays(limit), options: options)) == limit)
        }
        let error = jsonParseError(Array(Self.nestedArrays(limit + 1).utf8), options: options)
        #expect(error?.offset == limit)
        #expect(error?.reason == "Nesting deeper than \(limit) levels")
    }

    @Test("depth counts open containers, not containers seen")
    func siblingsDoNotAddUp() throws {
        var options = JSONParser.Options()
        options.maxDepth = 2
        #expect(try JSONParser.parse(#"[[],[],{},[1],{"a":2}]"#, options: options) == [[], [], [:], [1], ["a": 2]])
    }
}
