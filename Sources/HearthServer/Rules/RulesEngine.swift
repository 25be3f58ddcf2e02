import Foundation
public import HearthCore
public import HearthLog
public import HearthRules
public import HearthStore
import Synchronization

/// The rules in force for this server — document rules, tree rules (per namespace) and storage rules — swapped
/// atomically on reload.
///
/// Rules deployed through the endpoints (and the console) are kept in a ``RulesStorage`` — the data directory
/// (``DeployedRules``) on SQLite, the shared database on PostgreSQL — so they stay in force across restarts as
/// Firebase's do; a rules file named on the command line takes precedence over them. With storage several nodes
/// share, a deploy on another node comes into force here too (``apply(deployed:)``), under the same precedence as at
/// start.
///
/// The one entry point every API uses (documents, tree, listeners): read ``firestoreRules`` / ``databaseRules`` once
/// per request and judge with them, so a reload never splits a request between two rule sets. Admin callers bypass
/// rules; callers check `AuthContext.isAdmin` before asking.
public final class RulesEngine: Sendable {
    private struct State: Sendable {
        var firestore: FirestoreRuleset
        /// Document rules deployed for one named database (`…:securityRules?database=ID`), by database ID; a
        /// database without its own uses ``firestore``.
        var firestoreByDatabase: [String: FirestoreRuleset] = [:]
        /// The tree rules of the default namespace: the `--database-rules` file, or the default without one.
        var database: DatabaseRuleset
        /// Tree rules put through `PUT /.settings/rules.json?ns=…`, by namespace (kept in ``DeployedRules``).
        var databaseByNamespace: [String: DatabaseRuleset] = [:]
        /// The storage rules: the `--storage-rules` file, or the default without one.
        var storage: StorageRuleset
    }

    private let state: Mutex<State>
    /// The deployed sources last seen in ``storage`` or kept through this node, so that a change another node made
    /// is applied once, and only the kinds it changed.
    private let seenDeployed: Mutex<[DeployedRulesKind: String]>
    private let configuration: ServerConfiguration
    private let logger: Logger
    private let databaseObservers = Mutex<[@Sendable () -> Void]>([])

    /// The document rules in force for the `(default)` database, and for every database without rules of its own.
    public var firestoreRules: FirestoreRuleset { state.withLock { $0.firestore } }

    /// The document rules in force for the database `id`: its own deployed rules, else the project's.
    public func firestoreRules(for id: String) -> FirestoreRuleset {
        state.withLock { state in state.firestoreByDatabase[id] ?? state.firestore }
    }

    /// The storage rules in force.
    public var storageRules: StorageRuleset { state.withLock { $0.storage } }
    /// The tree rules in force for a namespace: the ones put for it, else for the default namespace the
    /// `--database-rules` file. Any other namespace starts with closed rules when there is a file, as each new database
    /// of the Firebase emulator does; without a file every namespace shares the default (open in `--dev`, closed
    /// otherwise).
    public func databaseRules(for namespace: String) -> DatabaseRuleset {
        state.withLock { state in
            if let own = state.databaseByNamespace[namespace] { return own }
            if namespace == configuration.projectID || configuration.databaseRulesFile == nil { return state.database }
            return .denyAll
        }
    }

    /// Loads `--rules`, `--database-rules` and `--storage-rules`, and the rules deployed in `storage` (the data
    /// directory's when `nil`). Without a file, development mode is open (with a warning) and production denies every
    /// client (with a log line saying so).
    /// - Throws: `INVALID_ARGUMENT` naming `file:line:column` when a rules file has an error; the storage's error when
    ///   it cannot be read.
    public init(
        configuration: ServerConfiguration, logger: Logger, storage: (any RulesStorage)? = nil
    ) throws(HearthError) {
        self.configuration = configuration
        self.logger = logger
        let storage = storage ?? DeployedRules(dataDirectory: configuration.dataDirectory)
        self.storage = storage
        let sources = try storage.deployedSources()
        // Rules deployed before a restart, unless a file names the rules of that language.
        let firestore: FirestoreRuleset
        if configuration.rulesFile == nil,
            let rules = try Self.deployed(.firestore, sources, storage, logger, FirestoreRuleset.init(source:))
        {
            firestore = rules
        } else {
            firestore = try Self.loadFirestore(configuration, logger: logger)
        }
        let storageRules: StorageRuleset
        if configuration.storageRulesFile == nil,
            let rules = try Self.deployed(.storage, sources, storage, logger, StorageRuleset.init(source:))
        {
            storageRules = rules
        } else {
            storageRules = try Self.loadStorage(configuration, logger: logger)
        }
        var byDatabase: [String: FirestoreRuleset] = [:]
        var byNamespace: [String: DatabaseRuleset] = [:]
        for kind in sources.keys {
            switch kind {
            case .firestoreDatabase(let id):
                byDatabase[id] = try Self.deployed(kind, sources, storage, logger, FirestoreRuleset.init(source:))
            case .tree(let namespace)
            where configuration.databaseRulesFile == nil || namespace != configuration.projectID:
                byNamespace[namespace] = try Self.deployed(
                    kind, sources, storage, logger, DatabaseRuleset.init(source:))
            default:
                break
            }
        }
        let database = try Self.loadDatabase(configuration, logger: logger)
        state = Mutex(
            State(
                firestore: firestore, firestoreByDatabase: byDatabase, database: database,
                databaseByNamespace: byNamespace, storage: storageRules))
        seenDeployed = Mutex(sources)
        storage.watch { [weak self] sources in self?.apply(deployed: sources) }
    }

    /// Where rules deployed through the endpoints are kept.
    private let storage: any RulesStorage

    /// Deployed rules that no longer compile (edited by hand) refuse the start, naming where they are kept, as a bad
    /// rules file does: serving with other rules than the ones deployed would be worse.
    /// The deployed rules of `kind`, compiled; `nil` when none were deployed.
    private static func deployed<Rules>(
        _ kind: DeployedRulesKind, _ sources: [DeployedRulesKind: String], _ storage: any RulesStorage,
        _ logger: Logger, _ compile: (String) throws(RulesSyntaxError) -> Rules
    ) throws(HearthError) -> Rules? {
        guard let source = sources[kind] else { return nil }
        let location = storage.location(of: kind)
        do {
            let rules = try compile(source)
            logger.info("deployed rules in force", ["file": .string(location)])
            return rules
        } catch {
            throw .invalidArgument("\(location):\(error.location.line):\(error.location.column): \(error.message)")
        }
    }

    /// Puts in force the deployed rules another node changed (`sources` is every deployed source now), under the
    /// precedence of the start: a language a rules file names keeps the file's rules. A source that does not compile
    /// here (deployed by a newer Hearth) is logged, and the rules in force stay.
    ///
    /// The storage calls this after each change it sees, so when a read raced a deploy of this node and an older
    /// source came in after the newer one, the newer one's own notification brings it back at once.
    func apply(deployed sources: [DeployedRulesKind: String]) {
        let changed = seenDeployed.withLock { seen -> [DeployedRulesKind: String] in
            let changed = sources.filter { seen[$0.key] != $0.value }
            seen.merge(changed) { _, new in new }
            return changed
        }
        var treeChanged = false
        for (kind, source) in changed {
            let location = storage.location(of: kind)
            do {
                switch kind {
                case .firestore where configuration.rulesFile == nil:
                    let rules = try FirestoreRuleset(source: source)
                    state.withLock { $0.firestore = rules }
                case .firestoreDatabase(let id):
                    let rules = try FirestoreRuleset(source: source)
                    state.withLock { $0.firestoreByDatabase[id] = rules }
                case .storage where configuration.storageRulesFile == nil:
                    let rules = try StorageRuleset(source: source)
                    state.withLock { $0.storage = rules }
                case .tree(let namespace)
                where configuration.databaseRulesFile == nil || namespace != configuration.projectID:
                    let rules = try DatabaseRuleset(source: source)
                    state.withLock { $0.databaseByNamespace[namespace] = rules }
                    treeChanged = true
                default:
                    logger.info(
                        "rules deployed on another node not applied: a rules file names this language",
                        ["rules": .string(location)])
                    continue
                }
                logger.info("rules deployed on another node in force", ["rules": .string(location)])
            } catch {
                logger.error(
                    "rules deployed on another node do not compile here; the previous rules stay in force",
                    [
                        "rules": .string(location),
                        "error": .string("\(error.location.line):\(error.location.column): \(error.message)"),
                    ])
            }
        }
        if treeChanged { databaseRulesChanged() }
    }

    /// Stops following rules other nodes deploy. Idempotent.
    public func stop() {
        storage.stopWatching()
    }

    deinit {
        storage.stopWatching()
    }

    /// Keeps `source` as the deployed rules of `kind`, remembered as seen so the storage's echo of it changes
    /// nothing.
    private func keep(_ source: String, as kind: DeployedRulesKind) throws(HearthError) {
        try storage.keep(source, as: kind)
        seenDeployed.withLock { $0[kind] = source }
    }

    /// Re-reads the rules files (SIGHUP). A file with errors is logged and the previous rules stay in force; rules
    /// with no file (the defaults, or rules put through the endpoints) stay as they are, except that the tree rules
    /// file replaces rules put for the default namespace.
    /// - Returns: the errors, empty when everything reloaded.
    @discardableResult
    public func reload() -> [String] {
        var errors: [String] = []
        if configuration.rulesFile != nil {
            do {
                let firestore = try Self.loadFirestore(configuration, logger: logger)
                state.withLock { $0.firestore = firestore }
            } catch {
                errors.append(error.message)
            }
        }
        if configuration.databaseRulesFile != nil {
            do {
                let database = try Self.loadDatabase(configuration, logger: logger)
                state.withLock { state in
                    state.database = database
                    state.databaseByNamespace[configuration.projectID] = nil
                }
                databaseRulesChanged()
            } catch {
                errors.append(error.message)
            }
        }
        if configuration.storageRulesFile != nil {
            do {
                let storage = try Self.loadStorage(configuration, logger: logger)
                state.withLock { $0.storage = storage }
            } catch {
                errors.append(error.message)
            }
        }
        for error in errors {
            logger.error("rules reload failed; previous rules stay in force", ["error": .string(error)])
        }
        if errors.isEmpty { logger.info("rules reloaded") }
        return errors
    }

    /// Runs `handler` each time the tree rules change (reload or replacement), so open streams can be re-judged.
    public func onDatabaseRulesChange(_ handler: @escaping @Sendable () -> Void) {
        databaseObservers.withLock { $0.append(handler) }
    }

    private func databaseRulesChanged() {
        for handler in databaseObservers.withLock({ $0 }) { handler() }
    }

    /// Replaces the document rules with `source` (the emulator endpoint): the project's, or with `database` those
    /// of one named database only.
    /// - Throws: `INVALID_ARGUMENT` with `line:column` when the source has an error; the previous rules stay.
    public func replaceFirestoreRules(source: String, database: String? = nil) throws(HearthError) {
        let rules: FirestoreRuleset
        do {
            rules = try FirestoreRuleset(source: source)
        } catch {
            throw .invalidArgument("firestore.rules:\(error.location.line):\(error.location.column): \(error.message)")
        }
        if let database, database != DatabaseName.defaultDatabase {
            try keep(source, as: .firestoreDatabase(database))
            state.withLock { $0.firestoreByDatabase[database] = rules }
            logger.info("document rules replaced", ["database": .string(database)])
            return
        }
        try keep(source, as: .firestore)
        state.withLock { $0.firestore = rules }
        logger.info("document rules replaced")
    }

    /// Replaces the storage rules with `source` (the console; `PUT /emulator/v1/projects/{p}:storageRules`).
    /// - Throws: `INVALID_ARGUMENT` with `line:column` when the source has an error; the previous rules stay.
    public func replaceStorageRules(source: String) throws(HearthError) {
        let rules: StorageRuleset
        do {
            rules = try StorageRuleset(source: source)
        } catch {
            throw .invalidArgument("storage.rules:\(error.location.line):\(error.location.column): \(error.message)")
        }
        try keep(source, as: .storage)
        state.withLock { $0.storage = rules }
        logger.info("storage rules replaced")
    }

    /// Replaces the tree rules of one namespace with `source` (`PUT /.settings/rules.json?ns=…`), kept across restarts
    /// (for the default namespace, until the rules file is reloaded).
    /// - Throws: `INVALID_ARGUMENT` with `line:column` when the source has an error; the previous rules stay.
    public func replaceDatabaseRules(source: String, namespace: String) throws(HearthError) {
        let rules: DatabaseRuleset
        do {
            rules = try DatabaseRuleset(source: source)
        } catch {
            throw .invalidArgument(
                "database.rules.json:\(error.location.line):\(error.location.column): \(error.message)")
        }
        try keep(source, as: .tree(namespace))
        state.withLock { $0.databaseByNamespace[namespace] = rules }
        logger.info("tree rules replaced", ["namespace": .string(namespace)])
        databaseRulesChanged()
    }

    /// Reloads on SIGHUP for the life of the process.
    public func reloadOnHangup() {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler { [weak self] in self?.reload() }
        source.resume()
        let box = SignalSourceBox(source: source)
        Self.hangupSources.withLock { $0.append(box) }
    }

    /// Keeps signal sources alive (a released source stops delivering).
    private static let hangupSources = Mutex<[SignalSourceBox]>([])

    private static func read(_ path: String) throws(HearthError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalidArgument("Cannot read the rules file \(path).")
        }
        return String(decoding: data, as: UTF8.self)
    }

    private static func loadFirestore(
        _ configuration: ServerConfiguration, logger: Logger
    ) throws(HearthError)
        -> FirestoreRuleset
    {
        try load(
            configuration.rulesFile, devMode: configuration.devMode, logger: logger,
            open: .allowAll, closed: .denyAll,
            warning: "NO DOCUMENT RULES: development mode without --rules allows every client everything",
            notice: "no --rules file: document access is denied to every client (admin credentials still work)"
        ) { source throws(RulesSyntaxError) in try FirestoreRuleset(source: source) }
    }

    private static func loadStorage(
        _ configuration: ServerConfiguration, logger: Logger
    ) throws(HearthError)
        -> StorageRuleset
    {
        try load(
            configuration.storageRulesFile, devMode: configuration.devMode, logger: logger,
            open: .allowAll, closed: .denyAll,
            warning: "NO STORAGE RULES: development mode without --storage-rules allows every client everything",
            notice: "no --storage-rules file: file access is denied to every client (admin credentials still work)"
        ) { source throws(RulesSyntaxError) in try StorageRuleset(source: source) }
    }

    private static func loadDatabase(
        _ configuration: ServerConfiguration, logger: Logger
    ) throws(HearthError)
        -> DatabaseRuleset
    {
        try load(
            configuration.databaseRulesFile, devMode: configuration.devMode, logger: logger,
            open: .allowAll, closed: .denyAll,
            warning: "NO TREE RULES: development mode without --database-rules allows every client everything",
            notice: "no --database-rules file: tree access is denied to every client (admin credentials still work)"
        ) { source throws(RulesSyntaxError) in try DatabaseRuleset(source: source) }
    }

    /// One language's rules: the file compiled by `compile` (an error names `file:line:column`), or without a file
    /// `open` in development mode (with `warning`) and `closed` otherwise (with `notice`).
    private static func load<Rules>(
        _ path: String?, devMode: Bool, logger: Logger, open: Rules, closed: Rules, warning: String, notice: String,
        compile: (String) throws(RulesSyntaxError) -> Rules
    ) throws(HearthError) -> Rules {
        guard let path else {
            if devMode {
                logger.warning(warning)
                return open
            }
            logger.info(notice)
            return closed
        }
        let source = try read(path)
        do {
            return try compile(source)
        } catch {
            throw .invalidArgument("\(path):\(error.location.line):\(error.location.column): \(error.message)")
        }
    }
}

/// Holds a signal source. Dispatch sources are thread-safe objects, but the overlay does not mark them `Sendable`;
/// the box is only stored, never used after `resume()`.
private final class SignalSourceBox: @unchecked Sendable {
    let source: any DispatchSourceSignal
    init(source: any DispatchSourceSignal) { self.source = source }
}
