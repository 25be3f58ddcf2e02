import HearthSQLite
import HearthStore

/// Composite indexes: declared ones reconciled at open, learned ones recorded, and background builds, each step a
/// job on the writer so commits interleave with it.
extension SQLiteDatabase {
    /// Brings `composite_indexes` in line with the declared definitions (and, in development mode, the learned
    /// ones); returns the IDs of the indexes still to build.
    static func reconcileIndexes(
        _ configuration: Configuration, catalog: IndexCatalog, in connection: SQLiteConnection
    ) throws -> [Int64] {
        // Learned indexes stay declared only in development mode; outside it they are dropped like any
        // undeclared index (their definitions stay in `learned_indexes` for `hearth indexes`).
        var definitions = configuration.indexes
        if configuration.learnsIndexes {
            for learned in try LearnedIndexes.load(from: connection) where !definitions.contains(learned) {
                definitions.append(learned)
            }
        }
        return try catalog.reconcile(with: definitions, in: connection)
    }

    /// Declares an index a development-mode query needed, through the writer, then builds it.
    func learn(_ definition: IndexDefinition) {
        let learned = configuration.onIndexLearned
        submit(
            .learnIndex(definition) { [weak self] result in
                guard case .success(let id) = result else { return }
                learned?(definition)
                self?.buildIndex(id, after: [])
            })
    }

    /// Drives a background build one chunk at a time through the writer, so commits interleave with it; each
    /// chunk waits for the configured gate (tests), if any.
    func buildIndex(_ id: Int64, after cursor: [UInt8]) {
        let step: @Sendable () -> Void = { [weak self] in
            self?.submit(
                .buildIndex(id: id, after: cursor) { [weak self] result in
                    if case .success(let next?) = result { self?.buildIndex(id, after: next) }
                })
        }
        if let gate = configuration.indexBuildGate { gate.pass(step) } else { step() }
    }
}
