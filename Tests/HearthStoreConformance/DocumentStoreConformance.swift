public import HearthStore
public import Testing

/// Runs a conformance check's body against a fresh, empty engine, and disposes of the engine after.
public typealias EngineScope<Engine> =
    @Sendable (
        _ body: @Sendable (Engine) async throws -> Void
    ) async throws -> Void

/// One engine-independent behaviour every engine of a kind must show (issue 22: one suite, both engines) —
/// `Engine` is `any DocumentStore` for the document suite, `any TreeStore` for the tree's.
public struct ConformanceCheck<Engine>: Sendable, CustomTestStringConvertible {
    /// The behaviour, as a test name.
    public let name: String
    let body: @Sendable (Engine) async throws -> Void

    init(_ name: String, _ body: @escaping @Sendable (Engine) async throws -> Void) {
        self.name = name
        self.body = body
    }

    /// The name, as the test runner shows each argument.
    public var testDescription: String { name }

    /// Runs the check on an engine `scope` makes.
    public func run(in scope: EngineScope<Engine>) async throws {
        try await scope(body)
    }
}

/// A check of the document engine suite.
public typealias DocumentConformanceCheck = ConformanceCheck<any DocumentStore>

/// The document engine conformance suite: each engine's tests run every check with `@Test(arguments:)` on a
/// fresh store of its own that declares ``indexes``. The checks cover commits, preconditions, transforms, the judge,
/// write receipts, point reads, listings in name order, the change log, and every query shape with its cursors and
/// aggregations; ``transactionChecks`` (run with the engine's clock) cover transactions.
public enum DocumentStoreConformance {
    /// Every check.
    public static let checks: [DocumentConformanceCheck] =
        commitChecks + changeLogChecks + listingChecks + listingOrderChecks + queryChecks + queryOrderChecks
        + queryIndexChecks + longValueChecks
}
