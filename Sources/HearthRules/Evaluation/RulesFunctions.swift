internal import Foundation
internal import HearthCore
internal import HearthCrypto

/// Global functions (`int()`, `string()`, `path()`…) and the `math`, `timestamp`, `duration` and `latlng`
/// namespaces.
enum RulesFunctions {
    static func fail(_ message: String, _ location: SourceLocation) -> EvaluationError {
        EvaluationError(message: message, location: location)
    }

    static func global(
        _ name: String, _ args: [RulesValue], _ location: SourceLocation
    ) throws(EvaluationError)
        -> RulesValue
    {
        guard args.count == 1 else { throw fail("unknown function '\(name)' with \(args.count) arguments", location) }
        let value = args[0]
        switch (name, value) {
        case ("int", .int): return value
        case ("int", .float(let d)):
            guard d.isFinite, let i = Int64(exactly: d.rounded(.towardZero)) else {
                throw fail("cannot convert \(d) to int", location)
            }
            return .int(i)
        case ("int", .string(let s)):
            guard let i = Int64(s) else { throw fail("cannot convert '\(s)' to int", location) }
            return .int(i)
        case ("float", .int(let i)): return .float(Double(i))
        case ("float", .float): return value
        case ("float", .string(let s)):
            guard let d = Double(s) else { throw fail("cannot convert '\(s)' to float", location) }
            return .float(d)
        case ("string", _): return .string(display(value))
        case ("path", .string(let s)):
            return .path(s.split(separator: "/").map(String.init))
        default:
            throw fail("unknown function '\(name)' for \(value.typeName)", location)
        }
    }

    /// `string(x)`: how a value prints.
    static func display(_ value: RulesValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .float(let d): String(d)
        case .string(let s): s
        case .path(let p): "/" + p.joined(separator: "/")
        case .timestamp(let t): t.rfc3339
        default: value.typeName
        }
    }

    static func namespaced(
        _ namespace: String, _ name: String, _ args: [RulesValue], _ location: SourceLocation
    )
        throws(EvaluationError) -> RulesValue
    {
        switch (namespace, name, args.count) {
        case ("math", "abs", 1):
            if case .int(let i) = args[0] {
                guard i != .min else { throw fail("integer overflow", location) }
                return .int(abs(i))
            }
            return .float(abs(try number(args[0], location)))
        case ("math", "ceil", 1): return .int(try integral(try number(args[0], location).rounded(.up), location))
        case ("math", "floor", 1): return .int(try integral(try number(args[0], location).rounded(.down), location))
        case ("math", "round", 1):
            return .int(try integral(try number(args[0], location).rounded(.toNearestOrAwayFromZero), location))
        case ("math", "sqrt", 1): return .float(try number(args[0], location).squareRoot())
        case ("math", "pow", 2):
            return .float(pow(try number(args[0], location), try number(args[1], location)))
        case ("math", "isInfinite", 1): return .bool(try number(args[0], location).isInfinite)
        case ("math", "isNaN", 1): return .bool(try number(args[0], location).isNaN)
        case ("timestamp", "value", 1):
            guard case .int(let ms) = args[0] else { throw fail("timestamp.value() takes int milliseconds", location) }
            return try RulesOperators.shift(Timestamp(seconds: 0, nanos: 0), ms * 1_000_000, location)
        case ("timestamp", "date", 3):
            guard case .int(let y) = args[0], case .int(let m) = args[1], case .int(let d) = args[2],
                let t = Timestamp(
                    rfc3339: "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T00:00:00Z")
            else { throw fail("timestamp.date() takes a valid year, month and day", location) }
            return .timestamp(t)
        case ("duration", "value", 2):
            guard case .int(let n) = args[0], case .string(let unit) = args[1] else {
                throw fail("duration.value() takes an int and a unit", location)
            }
            let scale: Int64
            switch unit {
            case "w": scale = 604_800_000_000_000
            case "d": scale = 86_400_000_000_000
            case "h": scale = 3_600_000_000_000
            case "m": scale = 60_000_000_000
            case "s": scale = 1_000_000_000
            case "ms": scale = 1_000_000
            case "ns": scale = 1
            default: throw fail("unknown duration unit '\(unit)'", location)
            }
            let result = n.multipliedReportingOverflow(by: scale)
            guard !result.overflow else { throw fail("duration overflow", location) }
            return .duration(result.partialValue)
        case ("duration", "time", 4):
            var total: Int64 = 0
            for (arg, scale) in zip(args, [3_600_000_000_000, 60_000_000_000, 1_000_000_000, 1] as [Int64]) {
                guard case .int(let n) = arg else { throw fail("duration.time() takes ints", location) }
                let part = n.multipliedReportingOverflow(by: scale)
                let sum = total.addingReportingOverflow(part.partialValue)
                guard !part.overflow, !sum.overflow else { throw fail("duration overflow", location) }
                total = sum.partialValue
            }
            return .duration(total)
        case ("duration", "abs", 1):
            guard case .duration(let d) = args[0] else { throw fail("duration.abs() takes a duration", location) }
            return .duration(abs(d))
        case ("hashing", let function, 1):
            let input: [UInt8]
            switch args[0] {
            case .bytes(let bytes): input = bytes
            case .string(let text): input = Array(text.utf8)
            default: throw fail("hashing.\(function)() takes bytes or a string", location)
            }
            switch function {
            case "crc32": return .bytes(RulesHashing.crc32(input))
            case "crc32c": return .bytes(RulesHashing.crc32c(input))
            case "md5": return .bytes(MD5.hash(input))
            case "sha256": return .bytes(SHA256.hash(input))
            default: throw fail("unknown function 'hashing.\(function)'", location)
            }
        case ("latlng", "value", 2):
            return .latlng(try number(args[0], location), try number(args[1], location))
        default:
            throw fail("unknown function '\(namespace).\(name)' with \(args.count) arguments", location)
        }
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    static func number(_ value: RulesValue, _ location: SourceLocation) throws(EvaluationError) -> Double {
        switch value {
        case .int(let i): return Double(i)
        case .float(let d): return d
        default: throw fail("expected a number, got \(value.typeName)", location)
        }
    }

    static func integral(_ d: Double, _ location: SourceLocation) throws(EvaluationError) -> Int64 {
        guard d.isFinite, let i = Int64(exactly: d) else { throw fail("number out of int range", location) }
        return i
    }
}
