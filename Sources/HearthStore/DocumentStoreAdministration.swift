public import HearthCore

/// Administration of a document engine: its indexes, the emulator's wipe, its counters and its shutdown.
public protocol DocumentStoreAdministration: Sendable {
    /// Declared composite indexes, whether each is ready, and how far a build has come.
    func indexStatuses() -> [IndexStatus]

    /// Composite indexes queries asked for and were refused without (outside development mode, which learns
    /// them instead), most recent last; an index declared since is left out.
    func missingIndexes() -> [IndexDefinition]

    /// Deletes every document (the emulator's wipe), recording each deletion in the change log.
    func deleteAllDocuments(completion: @escaping @Sendable (Result<Int, HearthError>) -> Void)

    /// Counters for `/metrics`.
    func statistics() -> StoreStatistics

    /// Finishes pending commits and closes the database. Idempotent.
    func close()

    /// Why the store cannot serve now (its database server out of reach), or `nil` when it can: what `/healthz`
    /// reports. Cheap enough to ask per probe.
    func unavailability() -> HearthError?
}

extension DocumentStoreAdministration {
    /// An engine that does not record refused queries has nothing to report.
    public func missingIndexes() -> [IndexDefinition] { [] }

    /// An embedded engine (a file on this machine) is there while the process is.
    public func unavailability() -> HearthError? { nil }
}
