public import Hearth
import Observation

/// Why a ``DataSource`` could not update its list.
public enum DataSourceError: Error {
    /// A `retrieve` block did not call `done` for every changed document within ``DataSource/Option/timeout``
    /// seconds; that step is dropped and the list stays as it was.
    case timeout
    /// The listener or the read failed (the listener then stops).
    case failed(any Error)
    /// A document did not decode as the element's model; it is left out of the list.
    case decoding(any Error)
}

/// A live, ordered list of ``Object``s over a query — Ballcap's `DataSource`, built from the element type:
///
/// ```swift
/// let dataSource = Task.order(by: "createdAt").limit(to: 30).dataSource()
///     .retrieve(from: { (_, snapshot, done) in done(try? Task(snapshot: snapshot)) })
///     .onChanged { (_, snapshot) in tableView.reloadData() }   // snapshot.before, .after, .changes
///     .listen()
/// ```
///
/// The list keeps the query's order (Ballcap sorts by `updatedAt`, newest first, whatever the query's order; call
/// ``sorted(by:)`` for another). It lives on the main actor: every block runs there, after the call that caused the
/// change has returned, one step at a time, in the order the SDK reports the steps.
@MainActor
public final class DataSource<T: Object & DataRepresentable>: @MainActor ExpressibleByArrayLiteral {
    /// The list's element.
    public typealias Element = T
    /// The element type of the array literal.
    public typealias ArrayLiteralElement = T
    /// Makes the element for a changed document and hands it to `done` (`nil` leaves the document out).
    public typealias RetrieveBlock = (QuerySnapshot?, QueryDocumentSnapshot, @escaping (Element?) -> Void) -> Void
    /// Hears of every step of the list.
    public typealias ChangedBlock = (QuerySnapshot?, Snapshot) -> Void
    /// Hears of failures.
    public typealias ErrorBlock = (QuerySnapshot?, DataSourceError) -> Void
    /// The elements a step removed, added and changed.
    public typealias Changes = (deletions: [Element], insertions: [Element], modifications: [Element])

    /// One step of the list.
    public struct Snapshot {
        /// The list before the step.
        public let before: [Element]
        /// The list after it.
        public let after: [Element]
        /// What changed: deletions from `before`, insertions into and modifications in `after`.
        public let changes: Changes
    }

    /// How the data source waits for `retrieve`.
    public struct Option: Sendable {
        /// Seconds a step waits for every `done` call.
        public var timeout: Int = 10
        /// The default options.
        public init() {}
    }

    /// The list now. Reading it (or the collection's elements and count) is tracked by Observation, and every
    /// step that changes it notifies the tracker.
    public internal(set) var documents: [Element] {
        get {
            observation.access(self, keyPath: \.documents)
            return storedDocuments
        }
        set { observation.withMutation(of: self, keyPath: \.documents) { storedDocuments = newValue } }
    }
    private var storedDocuments: [Element] = []
    /// Observation's bookkeeping for ``documents``.
    private let observation = ObservationRegistrar()
    /// Whether ``next(_:)`` found no more documents.
    public private(set) var isLast = false
    /// The query the list is built from.
    public private(set) var query: Query
    /// The options.
    public let option: Option

    var retrieveBlock: RetrieveBlock?
    var changedBlock: ChangedBlock?
    var errorBlock: ErrorBlock?
    var sortedBlock: ((Element, Element) throws -> Bool)?
    var listener: (any ListenerRegistration)?
    /// Results waiting for the step before them to finish.
    var waiting: [Step] = []
    /// Bumped by every step and by ``stop()``: a `done` or timeout of an older step is ignored.
    var generation = 0
    var working = false

    /// A data source over `reference`'s query.
    public init(reference: Query, option: Option = Option()) {
        query = reference
        self.option = option
    }

    /// A data source holding `documents`, over the element type's collection.
    public init(_ documents: [Element]) {
        query = Query(T.collectionReference)
        option = Option()
        self.documents = documents
    }

    /// A data source holding the listed elements.
    public convenience init(arrayLiteral elements: Element...) { self.init(elements) }

    deinit { listener?.remove() }

    // MARK: Configuration

    /// Replaces the default mapping (`Element(snapshot:)`) with `block`, which may read more before calling `done`.
    @discardableResult
    public func retrieve(from block: RetrieveBlock?) -> Self {
        retrieveBlock = block
        return self
    }

    /// Calls `block` with the first results and after every change.
    @discardableResult
    public func onChanged(_ block: ChangedBlock?) -> Self {
        changedBlock = block
        return self
    }

    /// Calls `block` when a step fails.
    @discardableResult
    public func onError(_ block: ErrorBlock?) -> Self {
        errorBlock = block
        return self
    }

    /// Orders the list by `areInIncreasingOrder` instead of the query's order.
    @discardableResult
    public func sorted(by areInIncreasingOrder: @escaping (Element, Element) throws -> Bool) rethrows -> Self {
        sortedBlock = areInIncreasingOrder
        documents = try documents.sorted(by: areInIncreasingOrder)
        return self
    }

    // MARK: Reading

    /// Starts following the query (a second call while listening does nothing) until ``stop()``.
    @discardableResult
    public func listen() -> Self {
        guard listener == nil else { return self }
        listener = query.listen(
            includeMetadataChanges: true, listener: MainQueue.relay(to: self) { $0.received($1, $2) })
        return self
    }

    /// A listener's snapshot, or its failure (the listener then stops).
    private func received(_ snapshot: QuerySnapshot?, _ error: (any Error)?) {
        guard let snapshot else {
            stop()
            errorBlock?(nil, .failed(error ?? CancellationError()))
            return
        }
        enqueue(Step(snapshot: snapshot, results: snapshot.documents, appending: false))
    }

    /// Stops following the query; the list keeps its contents.
    public func stop() {
        listener?.remove()
        listener = nil
        waiting = []
        working = false
        generation += 1
    }

    /// Reads the query once and makes the results the list; `block` gets whether it was empty.
    @discardableResult
    public func get(_ block: ((Bool) -> Void)? = nil) -> Self {
        read(query.query, appending: false, block)
        return self
    }

    /// Reads the documents after the last one in the list (one more page with a limit) and appends them; `block`
    /// gets whether there were none (``isLast``).
    @discardableResult
    public func next(_ block: ((Bool) -> Void)? = nil) -> Self {
        let after = documents.last?.snapshot.map { query.query.start(afterDocument: $0) } ?? query.query
        read(after, appending: true, block)
        return self
    }

    private func read(_ query: Hearth.Query, appending: Bool, _ block: ((Bool) -> Void)?) {
        let block = MainActorBound(block)
        query.getDocuments { [weak self] snapshot, error in
            MainQueue.run(snapshot, error) { snapshot, error in
                guard let self else { return }
                guard let snapshot else {
                    self.errorBlock?(nil, .failed(error ?? CancellationError()))
                    return
                }
                if appending { self.isLast = snapshot.isEmpty }
                block.value?(snapshot.isEmpty)
                self.enqueue(Step(snapshot: snapshot, results: snapshot.documents, appending: appending))
            }
        }
    }
}
