public import HearthStore

/// A check of the tree engine suite.
public typealias TreeConformanceCheck = ConformanceCheck<any TreeStore>

/// The tree engine conformance suite: each engine's tests run every check with `@Test(arguments:)` on a fresh
/// engine of its own. The checks cover writes (PUT, multi-path PATCH, deletes and pruning, priorities, arrays,
/// server values, if-match), reads (full, shallow, namespaces) and the change log with its feed.
public enum TreeStoreConformance {
    /// Every check.
    public static let checks: [TreeConformanceCheck] = treeWriteChecks + treeReadChecks
}
