/// One node of a rules expression, with the place it starts in the source.
///
/// A final class rather than an indirect enum so sub-trees are shared, not copied, and evaluation walks pointers.
final class Expression: Sendable {
    /// The unary operators.
    enum UnaryOperator: Sendable { case not, negate }

    /// The binary operators, from both rules languages.
    enum BinaryOperator: String, Sendable {
        case or = "||"
        case and = "&&"
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case `in` = "in"
        case add = "+"
        case subtract = "-"
        case multiply = "*"
        case divide = "/"
        case remainder = "%"
    }

    /// One part of a path literal: fixed text or a `$(expression)` interpolation.
    enum PathPart: Sendable {
        case literal(String)
        case interpolation(Expression)
    }

    /// What the node is.
    enum Kind: Sendable {
        case null
        case bool(Bool)
        case integer(Int64)
        case float(Double)
        case string(String)
        case regex(String)
        case identifier(String)
        case list([Expression])
        case map([(String, Expression)])
        case path([PathPart])
        case member(Expression, String)
        case index(Expression, Expression)
        case slice(Expression, Expression?, Expression?)
        /// A call of a declared or global function: `isOwner(x)`, `get(path)`.
        case call(String, [Expression])
        /// A method call: `name.size()`.
        case method(Expression, String, [Expression])
        case unary(UnaryOperator, Expression)
        case binary(BinaryOperator, Expression, Expression)
        case conditional(Expression, Expression, Expression)
        case isType(Expression, String)
    }

    let kind: Kind
    let location: SourceLocation

    init(_ kind: Kind, at location: SourceLocation) {
        self.kind = kind
        self.location = location
    }
}
