public import Observation

/// A ``DocumentList``'s list as an `@Observable` array for SwiftUI (and anything using Observation): views reading
/// ``documents`` update when it changes. Lives on the main actor.
///
/// ```swift
/// @State var todos = LiveDocuments(DocumentList<Todo>(db.collection("todos")).order(by: "date", descending: true))
/// List(todos.documents) { todo in Text(todo[\.title]) }.task { await todos.run() }
/// ```
@MainActor
@Observable
public final class LiveDocuments<Model: Codable & Sendable> {
    /// The list.
    public private(set) var documents: [Document<Model>] = []
    /// How the latest step changed the list.
    public private(set) var changes = ListChanges.none
    /// Whether the first results have arrived.
    public private(set) var isLoaded = false
    /// Why the listener stopped, if it failed.
    public private(set) var error: (any Error)?

    /// The data source behind the list.
    @ObservationIgnored public let source: DocumentList<Model>
    @ObservationIgnored private var task: Task<Void, Never>?

    /// A live array over `source` (configured, not yet listening).
    public init(_ source: DocumentList<Model>) { self.source = source }

    /// Listens and follows the list until ``stop()`` or the listener fails; returns then. Use it as a view's
    /// `.task`, or call ``start()``.
    public func run() async {
        let steps = source.snapshots
        source.listen()
        do {
            for try await step in steps { apply(step) }
        } catch {
            self.error = error
        }
    }

    /// Starts ``run()`` in a task of its own.
    public func start() {
        guard task == nil else { return }
        task = Task { await self.run() }
    }

    /// Stops listening; the list keeps its contents.
    public func stop() {
        source.stop()
        task = nil
    }

    /// Loads the next page (see ``DocumentList/next()``).
    @discardableResult
    public func next() async throws -> Bool { try await source.next() }

    private func apply(_ step: DocumentList<Model>.Snapshot) {
        documents = step.after
        changes = step.changes
        isLoaded = true
    }
}
