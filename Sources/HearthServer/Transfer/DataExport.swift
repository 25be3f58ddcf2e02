import Foundation
import HearthAuth
public import HearthCore
import HearthSQLite
import HearthStoreSQLite

/// `hearth export`: a data directory as a directory of JSON-lines files (docs/export.md) — every project's
/// documents in every database, the tree, accounts with their password hashes, rules and composite indexes — that
/// `hearth import` (``DataImport``) reads back exactly.
///
/// The export mirrors the data directory's layout: the served project at the top, `databases/{id}` for its named
/// databases, `projects/{id}` for each other project with the same layout. Each database file is read in one
/// snapshot (its documents, accounts and tree as of one moment) through a read-only connection, so a running server
/// keeps serving and writing.
public enum DataExport {
    /// The manifest's file name and its `format` member.
    static let manifestName = "hearth-export.json"
    static let formatName = "hearth-export"
    /// The version of the format; an import refuses any other.
    static let formatVersion: Int64 = 1

    /// What an export wrote (or an import read).
    public struct Summary: Sendable, Equatable {
        /// Projects (the served one included).
        public var projects = 0
        /// Databases, `(default)` ones included.
        public var databases = 0
        /// Documents.
        public var documents = 0
        /// Accounts.
        public var accounts = 0
        /// Tree leaves and priorities.
        public var treeRows = 0
        /// Rules files.
        public var rules = 0

        /// Nothing yet.
        public init() {}

        mutating func add(_ other: Summary) {
            projects += other.projects
            databases += other.databases
            documents += other.documents
            accounts += other.accounts
            treeRows += other.treeRows
            rules += other.rules
        }
    }

    /// Rules files named on the command line: the rules in force for every project where given, over those
    /// deployed in the data directory.
    public struct RulesFiles: Sendable {
        /// The document rules (`--rules`).
        public var firestore: String?
        /// The storage rules (`--storage-rules`).
        public var storage: String?
        /// The served project's tree rules (`--database-rules`), for the namespace named like its project.
        public var tree: String?
        /// The served project's ID (its tree namespace).
        public var projectID: String

        /// Rules files.
        public init(firestore: String? = nil, storage: String? = nil, tree: String? = nil, projectID: String) {
            self.firestore = firestore
            self.storage = storage
            self.tree = tree
            self.projectID = projectID
        }
    }

    /// Exports the data directory `data` into `output`, which must not exist yet (it is made, and removed again if
    /// the export fails).
    public static func export(data: String, to output: String, rules: RulesFiles) throws(HearthError) -> Summary {
        let manager = FileManager.default
        guard manager.fileExists(atPath: (data as NSString).appendingPathComponent(SQLiteDocumentStore.fileName)) else {
            throw .notFound("\(data) holds no Hearth database (\(SQLiteDocumentStore.fileName)).")
        }
        guard !manager.fileExists(atPath: output) else {
            throw .alreadyExists("\(output) exists; an export goes to a new directory.")
        }
        do {
            var summary = try exportProject(data, to: output, rules: rules)
            for id in DataDirectoryLayout.subdirectories(of: data, DataDirectoryLayout.projects) {
                summary.add(
                    try exportProject(
                        path(data, DataDirectoryLayout.projects, id),
                        to: path(output, DataDirectoryLayout.projects, id),
                        rules: RulesFiles(firestore: rules.firestore, storage: rules.storage, projectID: id)))
            }
            let manifest: JSONValue = [
                "format": .string(formatName), "version": .integer(formatVersion),
                "projects": .integer(Int64(summary.projects)),
                "databases": .integer(Int64(summary.databases)), "documents": .integer(Int64(summary.documents)),
                "accounts": .integer(Int64(summary.accounts)), "treeRows": .integer(Int64(summary.treeRows)),
            ]
            try write(manifest.serialized(pretty: true) + [UInt8(ascii: "\n")], to: path(output, manifestName))
            return summary
        } catch {
            try? manager.removeItem(atPath: output)
            throw error
        }
    }

    /// One project's directory: its `(default)` database with the accounts and the tree, its named databases, its
    /// rules.
    private static func exportProject(
        _ directory: String, to output: String, rules: RulesFiles
    ) throws(HearthError) -> Summary {
        var summary = Summary()
        summary.projects = 1
        try makeDirectory(output)
        try StoreTransferSnapshot.read(directory) { db throws(HearthError) in
            summary.documents += try exportDocuments(db, to: output)
            let accounts = try JSONLinesWriter(creating: path(output, "accounts.jsonl"))
            try StoreTransferSnapshot.run("reading the accounts of \(directory)") {
                try AccountTransfer.forEachAccount(in: db) { user in
                    try accounts.line { JSONWriter.write(AccountTransfer.json(user), into: &$0) }
                }
            }
            try accounts.close()
            summary.accounts = accounts.lines
            let tree = try JSONLinesWriter(creating: path(output, "tree.jsonl"))
            try StoreTransferSnapshot.run("reading the tree of \(directory)") {
                try StoreTransfer.forEachTreeRow(in: db) { namespace, segments, leaf in
                    try tree.line {
                        ExportLines.treeRow(namespace: namespace, segments: segments, leaf: leaf, into: &$0)
                    }
                }
            }
            try tree.close()
            summary.treeRows = tree.lines
        }
        summary.databases = 1
        for id in DataDirectoryLayout.subdirectories(of: directory, DatabaseServer.namedDirectory) {
            let database = path(directory, DatabaseServer.namedDirectory, id)
            let target = path(output, DatabaseServer.namedDirectory, id)
            try makeDirectory(target)
            try StoreTransferSnapshot.read(database) { db throws(HearthError) in
                summary.documents += try exportDocuments(db, to: target)
            }
            summary.databases += 1
        }
        summary.rules = try exportRules(of: directory, to: output, files: rules)
        return summary
    }

    /// `documents.jsonl` and `indexes.json` of one database snapshot; returns how many documents it held.
    private static func exportDocuments(_ db: SQLiteConnection, to output: String) throws(HearthError) -> Int {
        let documents = try JSONLinesWriter(creating: path(output, "documents.jsonl"))
        try StoreTransferSnapshot.run("reading the documents of \(output)") {
            try StoreTransfer.forEachDocument(in: db) { document in
                try documents.line { ExportLines.document(document, into: &$0) }
            }
        }
        try documents.close()
        let indexes = try StoreTransferSnapshot.run("reading the indexes of \(output)") {
            try LearnedIndexes.definitions(in: db)
        }
        try write(Array(LearnedIndexes.indexesJSON(indexes).utf8), to: path(output, "indexes.json"))
        return documents.lines
    }

    /// The rules in force for a project — a named file, else the deployed rules — into `rules/` in the layout of
    /// ``DeployedRules``, so an import deploys them. Returns how many files it wrote.
    private static func exportRules(
        of directory: String, to output: String, files: RulesFiles
    ) throws(HearthError) -> Int {
        let deployed = DeployedRules(dataDirectory: directory)
        var sources: [DeployedRules.Kind: String] = [:]
        for kind in deployed.deployedKinds() { sources[kind] = deployed.source(of: kind) }
        let named: [(DeployedRules.Kind, String?)] = [
            (.firestore, files.firestore), (.storage, files.storage), (.tree(files.projectID), files.tree),
        ]
        for case (let kind, let file?) in named {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw .invalidArgument("Cannot read the rules file \(file).")
            }
            sources[kind] = String(decoding: data, as: UTF8.self)
        }
        let target = DeployedRules(dataDirectory: output)
        for (kind, source) in sources { try target.keep(source, as: kind) }
        return sources.count
    }

    static func path(_ base: String, _ components: String...) -> String {
        components.reduce(base) { ($0 as NSString).appendingPathComponent($1) }
    }

    static func makeDirectory(_ path: String) throws(HearthError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .internal("Cannot create \(path): \(error.localizedDescription)")
        }
    }

    static func write(_ bytes: [UInt8], to path: String) throws(HearthError) {
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .internal("Cannot write \(path): \(error.localizedDescription)")
        }
    }
}

/// Typed-throw adapters around the engine's untyped snapshot reads.
enum StoreTransferSnapshot {
    /// Runs `body` on one read snapshot of the database in `directory`.
    static func read(_ directory: String, _ body: (SQLiteConnection) throws(HearthError) -> Void) throws(HearthError) {
        var failure: HearthError?
        do {
            try StoreTransfer.withSnapshot(ofDirectory: directory) { db in
                do throws(HearthError) {
                    try body(db)
                } catch {
                    failure = error
                }
            }
        } catch {
            throw .internal("Cannot read the database in \(directory): \(error)")
        }
        if let failure { throw failure }
    }

    /// Runs an engine read; what it throws becomes `INTERNAL` naming `what`, a `HearthError` passes unchanged.
    static func run<T>(_ what: String, _ body: () throws -> T) throws(HearthError) -> T {
        do {
            return try body()
        } catch let error as HearthError {
            throw error
        } catch {
            throw .internal("Failed \(what): \(error)")
        }
    }
}
