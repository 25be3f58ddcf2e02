import HearthCore
import Synchronization

/// The declared composite indexes of a database: loaded from the engine's stored catalog, reconciled with the
/// configured definitions at start, and consulted by the writer (to maintain entries) and the planner.
package final class IndexCatalog: Sendable {
    package struct Entry: Sendable {
        package var id: Int64
        package var definition: IndexDefinition
        package var ready: Bool
        /// While building: documents indexed so far, and how many the build found when it started.
        package var completedDocuments: Int64 = 0
        package var estimatedDocuments: Int64? = nil

        package init(id: Int64, definition: IndexDefinition, ready: Bool) {
            self.id = id
            self.definition = definition
            self.ready = ready
        }
    }

    /// What one step of a build did.
    package struct BuildStep: Sendable {
        /// The last `name_key` done, or `nil` when the build is complete.
        package var next: [UInt8]?
        /// The documents this step indexed.
        package var indexed: Int
        /// The first step's count of the documents to index; `nil` on later steps.
        package var estimated: Int64?

        package init(next: [UInt8]?, indexed: Int, estimated: Int64? = nil) {
            self.next = next
            self.indexed = indexed
            self.estimated = estimated
        }
    }

    package init() {}

    private let entries = Mutex<[Entry]>([])
    /// Development mode's learner: handed each composite index a query needed and did not find, once.
    private let learning = Mutex<(learn: (@Sendable (IndexDefinition) -> Void)?, asked: Set<IndexDefinition>)>(
        (nil, []))

    /// Indexes refused queries needed (outside development mode), most recent last, at most ``missingLimit``.
    private let missing = Mutex<[IndexDefinition]>([])
    package static let missingLimit = 100

    /// Every index, in declaration order.
    package var all: [Entry] { entries.withLock { $0 } }

    /// Whether queries without their composite index are answered by a scan (development mode).
    package var learnsIndexes: Bool { learning.withLock { $0.learn != nil } }

    /// Turns development mode's learning on: `learn` gets each index queries need that the catalog lacks.
    package func startLearning(_ learn: @escaping @Sendable (IndexDefinition) -> Void) {
        learning.withLock { $0.learn = learn }
    }

    /// A query needed `definition`: the learner hears of it the first time, unless the index exists (building).
    package func needed(_ definition: IndexDefinition) {
        guard !entries.withLock({ $0.contains { $0.definition == definition } }) else { return }
        let learn = learning.withLock { state in state.asked.insert(definition).inserted ? state.learn : nil }
        learn?(definition)
    }

    /// A query was refused for want of `definition` (outside development mode): kept for the console to show.
    package func refused(needing definition: IndexDefinition) {
        missing.withLock { missing in
            missing.removeAll { $0 == definition }
            missing.append(definition)
            if missing.count > Self.missingLimit { missing.removeFirst(missing.count - Self.missingLimit) }
        }
    }

    /// The indexes refused queries needed that are still not declared.
    package var missingDefinitions: [IndexDefinition] {
        let declared = Set(all.map(\.definition))
        return missing.withLock { $0.filter { !declared.contains($0) } }
    }

    /// Adds a learned index, building (its entries are maintained from now on; a build fills in the rest).
    package func add(_ entry: Entry) {
        entries.withLock { entries in
            if !entries.contains(where: { $0.definition == entry.definition }) { entries.append(entry) }
        }
    }

    /// The indexes covering documents of a collection ID.
    package func indexes(forCollectionID id: String) -> [Entry] {
        entries.withLock { $0.filter { $0.definition.collectionID == id } }
    }

    /// Takes in a build step after its commit: the progress it made, and readiness when it was the last.
    package func record(_ step: BuildStep, of id: Int64) {
        entries.withLock { entries in
            guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
            if let estimated = step.estimated {
                entries[index].completedDocuments = 0
                entries[index].estimatedDocuments = estimated
            }
            entries[index].completedDocuments += Int64(step.indexed)
            if step.next == nil { entries[index].ready = true }
        }
    }

    /// Takes in a build's progress as an engine that keeps it with the index reports it (every node stepping one
    /// build, as PostgreSQL's engine does): the totals so far, and readiness.
    package func recordProgress(of id: Int64, completed: Int64, estimated: Int64?, ready: Bool) {
        entries.withLock { entries in
            guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
            entries[index].completedDocuments = completed
            entries[index].estimatedDocuments = estimated
            if ready { entries[index].ready = true }
        }
    }

    /// Replaces every index (after the stored catalog was read or reconciled).
    package func replaceAll(_ entries: [Entry]) {
        self.entries.withLock { $0 = entries }
    }
}
