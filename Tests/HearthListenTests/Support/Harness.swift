import HearthCore
import HearthStore
import Testing

@testable import HearthListen

/// Firestore JSON of a fields object from `name: value` pairs, where values are already typed JSON.
func fields(_ members: (String, String)...) -> String {
    "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
}

/// Typed JSON of an integer.
func int(_ value: Int) -> String { #"{"integerValue":"\#(value)"}"# }
/// Typed JSON of a string.
func str(_ value: String) -> String { #"{"stringValue":"\#(value)"}"# }

let testDatabase = DatabaseName(project: "demo")

/// A query over a top-level collection.
func query(
    _ collection: String, where filter: QueryFilter? = nil, orderBy: [(String, Bool)] = [], limit: Int? = nil
) -> StructuredQuery {
    StructuredQuery(
        parent: .root, collectionID: collection, filter: filter,
        orderBy: orderBy.map { QueryOrder(field: FieldPath(segments: [$0.0]), descending: $0.1) }, limit: limit)
}

/// `field == value`.
func equals(_ field: String, _ value: Value) -> QueryFilter { .field(FieldPath(segments: [field]), .equal, value) }

/// A compact description of a response, for readable assertions: `ADD 1`, `change rooms/a [1,2]`, `CURRENT 1 @3`,
/// `marker @3`, …
func describe(_ response: ListenResponse) -> String {
    func ids(_ ids: [Int32]) -> String { "[" + ids.map(String.init).joined(separator: ",") + "]" }
    func short(_ name: String) -> String { String(name.dropFirst(testDatabase.documentsRoot.count + 1)) }
    switch response {
    case .targetChange(let change):
        var text: String
        switch change.kind {
        case .noChange where change.targetIDs.isEmpty: text = "marker"
        default: text = change.kind.rawValue + " " + change.targetIDs.map(String.init).joined(separator: ",")
        }
        if let cause = change.cause { text += " " + cause.code.name }
        if let token = change.resumeToken { text += " @\(token.sequence)" }
        return text
    case .documentChange(let document, let targetIDs):
        return "change \(document.path) \(ids(targetIDs))"
    case .documentDelete(let name, let removed, _):
        return "delete \(short(name)) \(ids(removed))"
    case .documentRemove(let name, let removed, _):
        return "remove \(short(name)) \(ids(removed))"
    case .filter(let targetID, let count):
        return "filter \(targetID)=\(count)"
    }
}

/// A hub core over a fake store, driven synchronously.
final class CoreHarness {
    let source = FakeSource()
    let core: ListenHubCore
    private let log: Log
    var time: Duration = .zero

    final class Log {
        var released: [TargetKey] = []
        var ended: [String] = []
    }

    init(
        configuration: ListenConfiguration = ListenConfiguration(),
        authorizer: any ListenAuthorizer = AllowAllListenAuthorizer(), pageSize: Int = 3
    ) {
        let log = Log()
        self.log = log
        core = ListenHubCore(
            environment: .init(
                reader: SnapshotReader(source: source, pageSize: pageSize), configuration: configuration,
                authorizer: authorizer,
                sessionEnded: { log.ended.append($0) }, targetRemoved: { log.released.append($0) }),
            sequence: 0, readTime: Timestamp(seconds: 1, nanos: 0))
    }

    var released: [TargetKey] { log.released }
    var ended: [String] { log.ended }

    func open(
        _ id: String = "s1", caller: ListenCaller = ListenCaller(auth: nil),
        credentialStillValid: (@Sendable () -> Bool)? = nil
    ) -> FakeSink {
        let sink = FakeSink()
        core.open(
            session: id, database: testDatabase, caller: caller, sink: sink, credentialStillValid: credentialStillValid,
            now: time)
        return sink
    }

    func add(
        _ id: Int32, _ kind: ListenTarget.Kind, session: String = "s1", token: ResumeToken? = nil, once: Bool = false
    ) {
        core.handle(
            .addTarget(ListenTarget(id: id, kind: kind, resumeToken: token, once: once)), session: session, now: time)
    }

    func remove(_ id: Int32, session: String = "s1") {
        core.handle(.removeTarget(id), session: session, now: time)
    }

    /// Writes through the fake store and hands the records to the core as one batch.
    @discardableResult
    func write(_ writes: (String, String?)...) -> [ChangeRecord] {
        let records = source.commit(writes, publish: false)
        core.apply(records, now: time)
        return records
    }

    /// Writes to the store only (the core has not seen them yet).
    @discardableResult
    func writeUnseen(_ path: String, _ fields: String?) -> ChangeRecord {
        source.write(path, fields, publish: false)
    }
}

extension FakeSink {
    /// The responses so far, described, then forgotten.
    func take() -> [String] {
        let described = responses.map(describe)
        reset()
        return described
    }
}
