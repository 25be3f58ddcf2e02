import HearthCore

/// Parses `bytes` and returns the error, or `nil` if parsing succeeded — so tables can compare errors field by field.
func jsonParseError(_ bytes: [UInt8], options: JSONParser.Options = .init()) -> JSONError? {
    do {
        _ = try JSONParser.parse(bytes, options: options)
        return nil
    } catch {
        return error
    }
}

/// What `value` serialises to, as text.
func jsonText(_ value: JSONValue, pretty: Bool = false, sortedKeys: Bool = true) -> String {
    var buffer: [UInt8] = []
    JSONWriter.write(value, into: &buffer, pretty: pretty, sortedKeys: sortedKeys)
    return String(decoding: buffer, as: UTF8.self)
}

/// How deeply `value` nests, counted without recursion so deep test values cannot overflow the test's stack.
func jsonDepth(_ value: JSONValue) -> Int {
    var deepest = 0
    var pending: [(JSONValue, Int)] = [(value, 0)]
    while let (current, depth) = pending.popLast() {
        switch current {
        case .array(let elements):
            deepest = max(deepest, depth + 1)
            pending.append(contentsOf: elements.map { ($0, depth + 1) })
        case .object(let members):
            deepest = max(deepest, depth + 1)
            pending.append(contentsOf: members.values.map { ($0, depth + 1) })
        default:
            deepest = max(deepest, depth)
        }
    }
    return deepest
}

/// A small deterministic generator (SplitMix64) so randomised tests fail the same way every run.
struct JSONTestRandom: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
