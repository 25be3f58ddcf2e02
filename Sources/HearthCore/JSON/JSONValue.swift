/// A JSON document held in memory.
///
/// Numbers keep the distinction Hearth's wire formats depend on: Firestore's `integerValue` and Realtime Database
/// counters must survive a round trip without passing through `Double`, so a literal that is a whole number within
/// `Int64` range stays ``integer(_:)`` and every other number becomes ``double(_:)``.
///
/// Object keys are Swift `String`s, which compare by canonical Unicode equivalence: a precomposed `é` and `e` followed
/// by a combining acute accent are the same key.
public enum JSONValue: Sendable, Equatable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits `Int64`, such as `-12` or `9223372036854775807`.
    case integer(Int64)
    /// Every other number, such as `1.5`, `1e3` or `99999999999999999999`; the parser never produces NaN or infinity.
    case double(Double)
    /// A string; always well-formed Unicode.
    case string(String)
    /// An array, in document order.
    case array([JSONValue])
    /// An object. Member order is not kept; the writer sorts keys so output is still deterministic.
    case object([String: JSONValue])
}
