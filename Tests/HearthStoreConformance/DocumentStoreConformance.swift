public import HearthStore
public import Testing

/// Runs a conformance check's body against a fresh, empty store of one engine, and disposes of the store after.
public typealias StoreScope =
    @Sendable (
        _ body: @Sendable (any DocumentStore) async throws -> Void
    ) async throws -> Void

/// One engine-independent behaviour every document engine must show (issue 22: one suite, both engines).
public struct ConformanceCheck: Sendable, CustomTestStringConvertible {
    /// The behaviour, as a test name.
    public let name: String
    let body: @Sendable (any DocumentStore) async throws -> Void

    init(_ name: String, _ body: @escaping @Sendable (any DocumentStore) async throws -> Void) {
        self.name = name
        self.body = body
    }

    /// The name, as the test runner shows each argument.
    public var testDescription: String { name }

    /// Runs the check on a store `scope` makes.
    public func run(in scope: StoreScope) async throws {
        try await scope(body)
    }
}

/// The document engine conformance suite: each engine's tests run every check with `@Test(arguments:)` on a
/// fresh store of its own. The checks cover commits, preconditions, transforms, the judge, write receipts, point
/// reads and the change log; queries, listings and transactions are not in it yet.
public enum DocumentStoreConformance {
    /// Every check.
    public static let checks: [ConformanceCheck] = commitChecks + changeLogChecks
}
