public import HearthCore

/// Which deployed rules a source is: the unit a deploy replaces whole.
public enum DeployedRulesKind: Sendable, Hashable {
    /// The document rules (the project's: every database without rules of its own).
    case firestore
    /// One named database's own document rules.
    case firestoreDatabase(String)
    /// The storage rules.
    case storage
    /// One namespace's tree rules.
    case tree(String)
}

/// Where rules deployed at run time (the rules endpoints, `PUT /.settings/rules.json`, the console) are kept so that
/// they outlive the process: the data directory's `rules/` on one SQLite node, or the PostgreSQL database every node
/// shares, so that a deploy on one node is in force on all of them.
///
/// The storage keeps sources only; the rules engine compiles them and decides which are in force (a rules file named
/// on the command line takes precedence over deployed rules of its language).
public protocol RulesStorage: Sendable {
    /// Every deployed source, by kind.
    /// - Throws: `UNAVAILABLE` or `INTERNAL` when the storage cannot be read.
    func deployedSources() throws(HearthError) -> [DeployedRulesKind: String]

    /// Keeps `source` as the deployed rules of `kind`, replacing what was there; once this returns, a later
    /// ``deployedSources()`` (on any node sharing the storage) returns it.
    /// - Throws: when it cannot be kept; the rules in force are then left as they were.
    func keep(_ source: String, as kind: DeployedRulesKind) throws(HearthError)

    /// Where `kind` is kept, for messages (a file's path, or the table's row).
    func location(of kind: DeployedRulesKind) -> String

    /// Calls `handler` with every deployed source each time another node may have changed them, until
    /// ``stopWatching()``. Storage that only this node writes never calls it.
    func watch(_ handler: @escaping @Sendable ([DeployedRulesKind: String]) -> Void)

    /// Stops calling the handler given to ``watch(_:)``. Idempotent.
    func stopWatching()
}

extension RulesStorage {
    /// Storage only this node writes has nothing to watch.
    public func watch(_ handler: @escaping @Sendable ([DeployedRulesKind: String]) -> Void) {}

    /// Nothing to stop.
    public func stopWatching() {}
}
