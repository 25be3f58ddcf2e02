/// The numbers ``Incrementable`` counts with: those `FieldValue.increment` takes.
public protocol IncrementableNumber: Codable, Sendable, Hashable {}
extension Int: IncrementableNumber {}
extension Int64: IncrementableNumber {}
extension Double: IncrementableNumber {}

/// A numeric property that is either a value or an increment the server applies atomically
/// (`FieldValue.increment`): `post[\.likes] = .increment(1)` and ``Document/update()``.
///
/// Read from the database it is always `.value`. An increment is an instruction, not a number: every write that
/// carries it adds again, and ``Document/save()`` (a replacement) starts the count from zero.
public enum Incrementable<Number: IncrementableNumber>: Codable, Sendable, Hashable {
    /// A stored number.
    case value(Number)
    /// Add this amount on the server.
    case increment(Number)

    /// The number, when it is one (`nil` for a pending increment).
    public var value: Number? {
        if case .value(let number) = self { return number }
        return nil
    }

    /// Reads a stored number.
    public init(from decoder: any Decoder) throws {
        self = .value(try decoder.singleValueContainer().decode(Number.self))
    }

    /// Writes the number, or the increment for the server.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .value(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .increment(let amount):
            try ModelEncoding.encodeMarker(.increment, operand: amount, to: encoder)
        }
    }
}
