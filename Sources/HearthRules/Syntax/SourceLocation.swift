/// A position in a rules file: 1-based line and column (columns count Unicode scalars), so errors point at the
/// exact character an editor shows.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// 1-based line number.
    public var line: Int
    /// 1-based column number.
    public var column: Int

    /// A location at `line`:`column`.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`, the form compilers and editors understand.
    public var description: String { "\(line):\(column)" }
}

/// A syntax error in a rules file, with the place it was found.
public struct RulesSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the error was found.
    public var location: SourceLocation
    /// What is wrong, in words.
    public var message: String

    /// An error at `location`.
    public init(_ message: String, at location: SourceLocation) {
        self.message = message
        self.location = location
    }

    /// `line:column: message`.
    public var description: String { "\(location): \(message)" }
}
