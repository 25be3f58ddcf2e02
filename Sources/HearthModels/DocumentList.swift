public import Hearth
import Synchronization

/// A live, ordered list of typed documents over any query (a collection, a collection group, filtered, ordered),
/// reported as a ``Snapshot`` of `before`, `after` and the ``ListChanges`` between them so a list view can animate.
///
/// ```swift
/// let todos = DocumentList<Todo>(db.collection("todos"))
///     .where("owner", isEqualTo: uid)
///     .order(by: "date", descending: true)
///     .limit(20)
///     .onChanged { snapshot in tableView.apply(snapshot.changes) }
///     .listen()
/// try await todos.next()  // 20 more, still live
/// ```
///
/// Configure it (builders, ``retrieve(_:)``, ``onChanged(_:)``) before ``listen()`` or ``get(source:)``; a builder
/// used later applies from the next read. With ``limit(_:)`` the list is paged: ``next()`` widens the live query by
/// one page, so every loaded page stays live. Handlers run on a background executor, one snapshot at a time.
public final class DocumentList<Model: Codable & Sendable>: Sendable {
    /// The list's element.
    public typealias Element = Document<Model>
    /// Turns a result into an element, or `nil` to leave it out of the list (see ``retrieve(_:)``).
    public typealias Retrieve = @Sendable (QueryDocumentSnapshot) async throws -> Element?

    /// One step of the list.
    public struct Snapshot: Sendable {
        /// The list before this step.
        public let before: [Element]
        /// The list after it.
        public let after: [Element]
        /// How to turn `before` into `after`.
        public let changes: ListChanges
    }

    /// An element with what it was made from.
    struct Entry: Sendable {
        let element: Element
        let fingerprint: Fingerprint
    }

    struct State: Sendable {
        var query: Query
        var pageSize: Int?
        var pages = 1
        var retrieve: Retrieve?
        var changeHandlers: [@Sendable (Snapshot) -> Void] = []
        var errorHandlers: [@Sendable (any Error) -> Void] = []
        var streams: [Int: AsyncThrowingStream<Snapshot, any Error>.Continuation] = [:]
        var nextStream = 0
        var entries: [Entry] = []
        var loaded = false
        var hasMore = false
        /// Bumped by every listen, re-listen and stop: results of an older generation are dropped.
        var generation = 0
        var listening = false
        var registration: (any ListenerRegistration)?
        var pump: Task<Void, Never>?
        /// The generation whose first results are in the list.
        var loadedGeneration = -1
        var waiters: [(generation: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    }

    let state: Mutex<State>
    let decoder: Firestore.Decoder

    /// A data source over `query` (a `CollectionReference` or `collectionGroup` works as well).
    public init(_ query: Query, decoder: Firestore.Decoder = Firestore.Decoder()) {
        state = Mutex(State(query: query))
        self.decoder = decoder
    }

    deinit {
        let registration = state.withLock { $0.registration }
        registration?.remove()
    }

    // MARK: Builders

    /// Orders the list by `field`.
    @discardableResult
    public func order(by field: String, descending: Bool = false) -> DocumentList {
        state.withLock { $0.query = $0.query.order(by: field, descending: descending) }
        return self
    }

    /// Loads `pageSize` documents at first, and `pageSize` more at each ``next()``.
    @discardableResult
    public func limit(_ pageSize: Int) -> DocumentList {
        state.withLock { $0.pageSize = max(1, pageSize) }
        return self
    }

    /// Keeps only documents matching `filter` (any `Filter`, including `orFilter`/`andFilter`).
    @discardableResult
    public func `where`(_ filter: Filter) -> DocumentList {
        state.withLock { $0.query = $0.query.whereFilter(filter) }
        return self
    }

    /// Keeps only documents whose `field` equals `value`.
    @discardableResult
    public func `where`(_ field: String, isEqualTo value: Any) -> DocumentList {
        `where`(Filter.whereField(field, isEqualTo: value))
    }

    /// Replaces the default mapping (decode as `Model`) with `transform`, which may read more data or return `nil`
    /// to leave a result out. It runs when a document enters the list or changes, not for unchanged documents.
    @discardableResult
    public func retrieve(_ transform: @escaping Retrieve) -> DocumentList {
        state.withLock { $0.retrieve = transform }
        return self
    }

    /// Calls `handler` with the first results and after every change.
    @discardableResult
    public func onChanged(_ handler: @escaping @Sendable (Snapshot) -> Void) -> DocumentList {
        state.withLock { $0.changeHandlers.append(handler) }
        return self
    }

    /// Calls `handler` when the listener fails (it then stops) or a document cannot be mapped (it is left out).
    @discardableResult
    public func onError(_ handler: @escaping @Sendable (any Error) -> Void) -> DocumentList {
        state.withLock { $0.errorHandlers.append(handler) }
        return self
    }

    // MARK: State

    /// The list now.
    public var documents: [Element] { state.withLock { $0.entries.map(\.element) } }

    /// Whether the last read filled every loaded page, so ``next()`` may find more.
    public var hasMore: Bool { state.withLock { $0.hasMore } }

    /// Whether a listener is running.
    public var isListening: Bool { state.withLock { $0.listening } }

    /// The query of the loaded pages.
    static func pagedQuery(_ state: State) -> Query {
        guard let pageSize = state.pageSize else { return state.query }
        return state.query.limit(to: pageSize * state.pages)
    }
}

extension DocumentList.State {
    /// A running listener and the task consuming its snapshots.
    struct Listener {
        let registration: (any ListenerRegistration)?
        let pump: Task<Void, Never>?
    }

    /// Starts a new generation (so results of the old one are dropped) and hands back the running listener, to be
    /// torn down outside the lock.
    mutating func newGeneration(listening: Bool) -> Listener {
        generation += 1
        self.listening = listening
        defer {
            registration = nil
            pump = nil
        }
        return Listener(registration: registration, pump: pump)
    }
}
