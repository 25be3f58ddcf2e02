/// A problem starting, talking to or stopping the server under test.
public struct HarnessError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
