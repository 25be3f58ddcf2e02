import Foundation
import HearthAuth
public import HearthCore
import HearthRules
import HearthStore
import HearthStoreSQLite
import Synchronization

/// `hearth import`: an export (``DataExport``, docs/export.md) read back into a new data directory — every
/// document with its times, accounts with their password hashes, the tree with its priorities, rules (deployed, as
/// if put through the endpoints) and composite indexes (recorded as learned: development mode builds them,
/// `hearth indexes` prints them).
///
/// Everything is written through the engine's one writer into a staging directory beside the target, which is
/// moved in only once all of it is stored (``DataDirectoryBackup/fill(_:verb:_:)``): an import that fails — a bad
/// line, a duplicate email, a full disk — leaves the target as it was, and no server may have the target open.
public enum DataImport {
    /// Documents per import job: large enough that the writer's transactions are few, small enough that one job's
    /// documents sit comfortably in memory.
    static let documentsPerBatch = 1000

    /// Imports the export `input` into the data directory `data`, which must be empty or absent.
    /// - Throws: `INVALID_ARGUMENT` naming the file and line of a bad line, `FAILED_PRECONDITION` for a target that
    ///   is not empty or open by a server.
    public static func importData(
        from input: String, to data: String, clock: WallClock = .system
    ) throws(HearthError) -> DataExport.Summary {
        try checkManifest(of: input)
        var summary = DataExport.Summary()
        try DataDirectoryBackup.fill(data, verb: "import") { staging throws(HearthError) in
            summary.add(try importProject(from: input, into: staging, clock: clock))
            for id in DataDirectoryLayout.subdirectories(of: input, DataDirectoryLayout.projects) {
                summary.add(
                    try importProject(
                        from: DataExport.path(input, DataDirectoryLayout.projects, id),
                        into: DataExport.path(staging, DataDirectoryLayout.projects, id), clock: clock))
            }
        }
        return summary
    }

    /// The manifest must name this format and version.
    private static func checkManifest(of input: String) throws(HearthError) {
        let path = DataExport.path(input, DataExport.manifestName)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .notFound("\(input) is not a Hearth export (no \(DataExport.manifestName)).")
        }
        let manifest: JSONValue
        do {
            manifest = try JSONParser.parse([UInt8](data))
        } catch {
            throw .invalidArgument("\(path) is not JSON (\(error.reason)).")
        }
        guard manifest["format"] == .string(DataExport.formatName) else {
            throw .invalidArgument("\(path) does not describe a Hearth export (format \"\(DataExport.formatName)\").")
        }
        guard manifest["version"] == .integer(DataExport.formatVersion) else {
            throw .invalidArgument(
                "\(path) is version \(manifest["version"]?.jsonString ?? "?") of the export format; this Hearth reads version \(DataExport.formatVersion)."
            )
        }
    }

    /// One project's directory of the export into `directory`.
    private static func importProject(
        from input: String, into directory: String, clock: WallClock
    ) throws(HearthError) -> DataExport.Summary {
        var summary = DataExport.Summary()
        summary.projects = 1
        // The rules first: cheapest to check, and a bad file should fail before a million documents are written.
        summary.rules = try importRules(from: input, into: directory)
        let store = try openStore(directory, clock: clock)
        defer { store.close() }
        summary.documents += try importDocuments(from: input, into: store)
        summary.accounts = try importAccounts(from: input, into: store, clock: clock)
        summary.treeRows = try importTree(from: input, into: store)
        try store.database.dropChangeLogs()
        summary.databases = 1
        for id in DataDirectoryLayout.subdirectories(of: input, DatabaseServer.namedDirectory) {
            guard DatabaseServer.isValidNamedID(id) else {
                throw .invalidArgument("\(input)/databases/\(id): not a valid database ID.")
            }
            let named = try openStore(DataExport.path(directory, DatabaseServer.namedDirectory, id), clock: clock)
            defer { named.close() }
            summary.documents += try importDocuments(
                from: DataExport.path(input, DatabaseServer.namedDirectory, id), into: named)
            try named.database.dropChangeLogs()
            summary.databases += 1
        }
        return summary
    }

    private static func openStore(_ directory: String, clock: WallClock) throws(HearthError) -> SQLiteDocumentStore {
        var configuration = SQLiteDocumentStore.Configuration(directory: directory)
        configuration.clock = clock
        // No disk reserve: an import that runs out of room fails whole, and the server makes its own at start.
        configuration.diskReserveBytes = 0
        return try SQLiteDocumentStore(configuration: configuration)
    }

    /// `documents.jsonl` in batches through the writer, then `indexes.json`; returns how many documents.
    private static func importDocuments(
        from input: String, into store: SQLiteDocumentStore
    ) throws(HearthError) -> Int {
        let file = DataExport.path(input, "documents.jsonl")
        // Two batches in flight: the writer stores one while this thread parses the next.
        let inFlight = DispatchSemaphore(value: 2)
        let pending = DispatchGroup()
        let outcome = Mutex<(stored: Int, failure: HearthError?)>((0, nil))
        func submit(_ batch: [DocumentSnapshot]) throws(HearthError) {
            inFlight.wait()
            if let failure = outcome.withLock({ $0.failure }) {
                inFlight.signal()
                throw failure
            }
            pending.enter()
            store.importDocuments(batch) { result in
                outcome.withLock { outcome in
                    switch result {
                    case .success(let count): outcome.stored += count
                    case .failure(let error): outcome.failure = outcome.failure ?? error
                    }
                }
                inFlight.signal()
                pending.leave()
            }
        }
        var batch: [DocumentSnapshot] = []
        batch.reserveCapacity(documentsPerBatch)
        do throws(HearthError) {
            try JSONLinesReader.forEachLine(of: file) { line, number throws(HearthError) in
                batch.append(try ExportLines.document(line, at: "\(file):\(number)"))
                if batch.count == documentsPerBatch {
                    try submit(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { try submit(batch) }
        } catch {
            pending.wait()
            throw error
        }
        pending.wait()
        let (count, failure) = outcome.withLock { $0 }
        if let failure { throw failure }
        let indexes = DataExport.path(input, "indexes.json")
        if let data = FileManager.default.contents(atPath: indexes) {
            let definitions: [IndexDefinition]
            do {
                definitions = try IndexDefinition.parseFile([UInt8](data))
            } catch {
                throw .invalidArgument("\(indexes): \(error.message)")
            }
            try store.importIndexDefinitions(definitions)
        }
        return count
    }

    /// `accounts.jsonl` in one transaction; returns how many accounts.
    private static func importAccounts(
        from input: String, into store: SQLiteDocumentStore, clock: WallClock
    ) throws(HearthError) -> Int {
        let file = DataExport.path(input, "accounts.jsonl")
        var users: [UserRecord] = []
        try JSONLinesReader.forEachLine(of: file) { line, number throws(HearthError) in
            do throws(HearthError) {
                users.append(try AccountTransfer.user(line))
            } catch {
                throw .invalidArgument("\(file):\(number): \(error.message)")
            }
        }
        guard !users.isEmpty else { return 0 }
        do {
            try AccountTransfer.restore(users, into: store.database, at: clock.microseconds / 1000)
        } catch {
            throw error as? HearthError ?? .internal("Importing the accounts failed: \(error)")
        }
        return users.count
    }

    /// `tree.jsonl`: each namespace's rows built into one node and written at its root, through the tree's one
    /// write path. Returns how many rows.
    private static func importTree(from input: String, into store: SQLiteDocumentStore) throws(HearthError) -> Int {
        let file = DataExport.path(input, "tree.jsonl")
        var rows: [String: [(segments: [String], leaf: TreeLeaf)]] = [:]
        var count = 0
        try JSONLinesReader.forEachLine(of: file) { line, number throws(HearthError) in
            let row = try ExportLines.treeRow(line, at: "\(file):\(number)")
            rows[row.namespace, default: []].append((row.segments, row.leaf))
            count += 1
        }
        let tree = SQLiteTreeStore(store: store)
        for (namespace, rows) in rows.sorted(by: { $0.key < $1.key }) {
            let write = TreeWrite(
                namespace: namespace, path: .root, operation: .put(TreeWriteValue(node: StoreTransfer.treeNode(rows))))
            let done = DispatchSemaphore(value: 0)
            let outcome = Mutex<Result<TreeWriteOutcome, HearthError>?>(nil)
            tree.write(write) { result in
                outcome.withLock { $0 = result }
                done.signal()
            }
            done.wait()
            guard case .committed = try outcome.withLock({ $0 })!.get() else {
                throw .internal("The tree of namespace \(namespace) was not written.")
            }
        }
        return count
    }

    /// The export's `rules/`, each file compiled first, into the directory's deployed rules; returns how many.
    private static func importRules(from input: String, into directory: String) throws(HearthError) -> Int {
        let source = DeployedRules(dataDirectory: input)
        let target = DeployedRules(dataDirectory: directory)
        var count = 0
        for kind in source.deployedKinds() {
            guard let text = source.source(of: kind) else { continue }
            do {
                switch kind {
                case .firestore, .firestoreDatabase: _ = try FirestoreRuleset(source: text)
                case .storage: _ = try StorageRuleset(source: text)
                case .tree: _ = try DatabaseRuleset(source: text)
                }
            } catch {
                throw .invalidArgument(
                    "\(source.path(of: kind)):\(error.location.line):\(error.location.column): \(error.message)")
            }
            try target.keep(text, as: kind)
            count += 1
        }
        return count
    }
}
