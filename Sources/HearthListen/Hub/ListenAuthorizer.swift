public import HearthCore
public import HearthStore

/// The security-rules hook of the listener hub, checked when a target is added and again for every document a
/// target would deliver (its initial results and each later change). The rules engine implements it; until then
/// ``AllowAllListenAuthorizer`` lets everything through.
///
/// Called on the hub's thread: keep it fast and never block on I/O beyond reading documents for `get()`/`exists()`.
public protocol ListenAuthorizer: Sendable {
    /// Whether ``authorize(document:database:target:caller:)`` needs calling at all. `false` skips the per-document
    /// calls entirely, so allow-all costs nothing per change.
    var checksDocuments: Bool { get }

    /// Checks a target as it is added. Throw `PERMISSION_DENIED` to refuse it: the client then gets a `REMOVE`
    /// carrying the error, as Firestore does.
    func authorize(target: ListenTarget, database: DatabaseName, caller: ListenCaller) throws(HearthError)

    /// Checks one document a target is about to deliver: its state after the change, or its last state before a
    /// deletion or removal. Throw `PERMISSION_DENIED` to end the target with that cause.
    func authorize(
        document: StoredDocument, database: DatabaseName, target: ListenTarget, caller: ListenCaller)
        throws(HearthError)
}

/// Allows every target and every document: the behaviour until security rules land.
public struct AllowAllListenAuthorizer: ListenAuthorizer {
    /// An authorizer that allows everything.
    public init() {}

    /// No per-document checks.
    public var checksDocuments: Bool { false }

    /// Allows the target.
    public func authorize(target: ListenTarget, database: DatabaseName, caller: ListenCaller) throws(HearthError) {}

    /// Allows the document.
    public func authorize(
        document: StoredDocument, database: DatabaseName, target: ListenTarget, caller: ListenCaller
    ) throws(HearthError) {}
}
