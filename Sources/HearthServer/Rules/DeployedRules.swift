import Foundation
public import HearthCore
public import HearthStore

/// Rules deployed through the endpoints and the console, kept in the data directory's `rules/` so they outlive the
/// process: `firestore.rules`, `databases/{id}.rules` for a named database's own document rules, `storage.rules`, and
/// `database/{namespace}.rules.json` for each namespace's tree rules. `hearth import` puts an export's rules here too. Each file is replaced whole (written beside, then renamed),
/// so a crash leaves the old rules or the new ones, never half of either.
///
/// The rules storage of a SQLite node; nodes on PostgreSQL keep deployed rules in the database instead
/// (`PostgresRulesStorage`), and this directory only seeds it.
public struct DeployedRules: RulesStorage {
    /// Which rules a file holds.
    public typealias Kind = DeployedRulesKind

    /// `DIR/rules`.
    public let directory: String

    /// The deployed rules of the data directory `dataDirectory`.
    public init(dataDirectory: String) {
        directory = (dataDirectory as NSString).appendingPathComponent("rules")
    }

    /// The file that keeps rules of `kind`.
    public func path(of kind: Kind) -> String {
        switch kind {
        case .firestore: return (directory as NSString).appendingPathComponent("firestore.rules")
        case .firestoreDatabase(let id): return path(of: id, in: Self.databaseRules)
        case .storage: return (directory as NSString).appendingPathComponent("storage.rules")
        case .tree(let namespace): return path(of: namespace, in: Self.treeRules)
        }
    }

    /// The deployed source of `kind`, or `nil` when none was deployed.
    public func source(of kind: Kind) -> String? {
        FileManager.default.contents(atPath: path(of: kind)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Every kind of rules deployed here: the project's document and storage rules when deployed, each named
    /// database's own, each namespace's tree rules.
    public func deployedKinds() -> [Kind] {
        [Kind.firestore, .storage].filter { FileManager.default.fileExists(atPath: path(of: $0)) }
            + databasesWithRules().map { .firestoreDatabase($0) } + treeNamespaces().map { .tree($0) }
    }

    /// The named databases with deployed document rules of their own, sorted.
    public func databasesWithRules() -> [String] { ids(in: Self.databaseRules) }

    /// The namespaces with deployed tree rules, sorted.
    public func treeNamespaces() -> [String] { ids(in: Self.treeRules) }

    /// Where the rules kept per ID go: a subdirectory, and the suffix after each percent-encoded ID.
    private static let databaseRules = (folder: "databases", suffix: ".rules")
    private static let treeRules = (folder: "database", suffix: ".rules.json")

    /// The file of `id` in `place`.
    private func path(of id: String, in place: (folder: String, suffix: String)) -> String {
        ((directory as NSString).appendingPathComponent(place.folder) as NSString)
            .appendingPathComponent(PercentEncoding.unreserved(id) + place.suffix)
    }

    /// The IDs with a file in `place`, sorted.
    private func ids(in place: (folder: String, suffix: String)) -> [String] {
        let names =
            (try? FileManager.default.contentsOfDirectory(
                atPath: (directory as NSString).appendingPathComponent(place.folder))) ?? []
        return names.filter { $0.hasSuffix(place.suffix) }
            .compactMap { String($0.dropLast(place.suffix.count)).removingPercentEncoding }.sorted()
    }

    /// Every deployed source, by kind (a file that vanished meanwhile is left out).
    public func deployedSources() -> [Kind: String] {
        var sources: [Kind: String] = [:]
        for kind in deployedKinds() { sources[kind] = source(of: kind) }
        return sources
    }

    /// The file that keeps `kind`.
    public func location(of kind: Kind) -> String { path(of: kind) }

    /// Keeps `source` as the deployed rules of `kind`.
    /// - Throws: `INTERNAL` when the file cannot be written (the rules in force are then left as they were).
    public func keep(_ source: String, as kind: Kind) throws(HearthError) {
        let path = path(of: kind)
        do {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(source.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .internal("Cannot keep the deployed rules in \(path): \(error.localizedDescription)")
        }
    }
}
