public import Testing

/// The engine the run's servers are on.
public enum TestStore {
    /// Whether servers run on PostgreSQL (`HEARTH_TEST_POSTGRES` set), for the few checks of what differs by engine
    /// without being missing (a whole test that cannot pass there takes ``Trait/sqliteOnly(_:)``
    /// instead).
    public static var isPostgres: Bool { PostgresTestStore.cluster != nil }

    /// `--store` and a fresh PostgreSQL database for a server whose test directory is `path` (the same one again
    /// for a restart there) when the run is on PostgreSQL; nothing on SQLite.
    public static func storeArguments(forDirectory path: String) throws -> [String] {
        guard let store = try PostgresTestStore.url(forDirectory: path) else { return [] }
        return ["--store", store]
    }
}

extension Trait where Self == ConditionTrait {
    /// Disables the test or suite when the run is on PostgreSQL because what it tests belongs to the SQLite engine
    /// alone (`why`: such as `hearth backup`, which copies the SQLite file) — engine-specific, not missing.
    public static func sqliteOnly(_ why: String) -> ConditionTrait {
        .disabled(if: PostgresTestStore.cluster != nil, Comment(rawValue: "SQLite engine only: \(why)"))
    }
}
