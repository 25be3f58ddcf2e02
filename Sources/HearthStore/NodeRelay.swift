package import HearthCore

/// Carries a request from the node that received it to the node that holds what it is about (a listen session's
/// stream lives on one node), and that node's answer back, when several nodes serve one database. The engine is the
/// transport — PostgreSQL's `PostgresNodeRelay` — and knows nothing of what the messages mean; the server encodes
/// them. A single-node engine (SQLite) has none.
package protocol NodeRelay: Sendable {
    /// This node's ID on the database: random at each start, a few Base64URL characters (never a `.`).
    var nodeID: String { get }

    /// Sends `message` to the node `node` and waits for its handler's answer; `nil` when none came within the relay's
    /// timeout (a few seconds): the node is gone, never existed, or is not serving.
    /// - Throws: `RESOURCE_EXHAUSTED` when too many messages from this node are waiting for answers; the engine's error
    ///   when the database cannot be reached.
    func send(_ message: [UInt8], to node: String) throws(HearthError) -> [UInt8]?

    /// Answers every message sent to this node with `handler` (on a thread of the relay's, one message at a time),
    /// from now until ``stop()``.
    func serve(_ handler: @escaping @Sendable ([UInt8]) -> [UInt8])

    /// Stops serving; later ``send(_:to:)`` calls answer `nil`. Idempotent.
    func stop()
}
