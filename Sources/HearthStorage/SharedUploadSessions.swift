package import HearthCore

/// Where resumable upload sessions live when several nodes serve one project: the session and its bytes so far in the
/// database every node shares (PostgreSQL's `PostgresObjects`), so that a session begun on one node is continued,
/// queried, finished or cancelled on any. The bytes go straight to the blob that becomes the object's, so finishing
/// copies nothing.
package protocol SharedUploadSessions: Sendable {
    /// Records the new session `session`, which has no bytes yet.
    func startSession(_ session: UploadSession) throws(HearthError)

    /// The session `id` if it is live at `nowMillis`, or `nil` (unknown, finished, cancelled or expired).
    func session(_ id: String, nowMillis: Int64) throws(HearthError) -> UploadSession?

    /// Appends the `count` bytes `descriptor` holds from its offset to `session`, which must still have
    /// `session.received` bytes and be live at `nowMillis`: the bytes and the session's new size in one transaction,
    /// so a chunk is wholly recorded or not at all.
    /// - Returns: `.recorded` with the new size, or `.moved` with the session's size when another chunk got there
    ///   first (nothing of this one is stored then).
    /// - Throws: `NOT_FOUND` when the session is not live.
    func append(
        to session: UploadSession, count: Int64, from descriptor: Int32, nowMillis: Int64
    ) throws(HearthError) -> ChunkOutcome

    /// Ends `session`, which must still have `session.received` bytes, in one transaction: its bytes become the
    /// object `object` makes of their size and checksums (computed over the stored bytes), the row of its name;
    /// the session is gone. Returns the object and the blob of the generation it replaced (whose bytes are gone).
    /// - Throws: `NOT_FOUND` when the session is not live, `ABORTED` when a chunk was appended since `session` was
    ///   read.
    func finish(
        _ session: UploadSession, nowMillis: Int64,
        object: (_ size: Int64, _ md5: String, _ crc32c: String) -> StoredObject
    ) throws(HearthError) -> (object: StoredObject, replaced: String?)

    /// Removes the session `id` and its bytes; whether it was there.
    func cancelSession(_ id: String) throws(HearthError) -> Bool

    /// Removes the sessions expired at `nowMillis` and their bytes; how many. Safe on several nodes at once.
    @discardableResult
    func sweepSessions(nowMillis: Int64) throws(HearthError) -> Int
}

/// What became of a resumable upload's chunk.
public enum ChunkOutcome: Sendable, Equatable {
    /// Stored: the session now has this many bytes.
    case recorded(Int64)
    /// Refused because the session no longer had the bytes the chunk was sent after (another chunk was stored
    /// first): it has this many, where the client resumes.
    case moved(Int64)
}

extension UploadSession {
    /// A session as shared storage keeps it; `blob` is the blob its bytes go to.
    package init(
        id: String, bucket: String, name: String, received: Int64, attributes: ObjectAttributes,
        expiresMillis: Int64, blob: String
    ) {
        self.init(
            id: id, bucket: bucket, name: name, received: received, attributes: attributes,
            expiresMillis: expiresMillis, blobID: blob)
    }

    /// The blob its bytes go to.
    package var blob: String { blobID }
}

extension ObjectAttributes {
    /// The attributes as a session row keeps them: their metadata JSON.
    package var sessionJSON: String {
        String(decoding: JSONValue.object(json).serialized(), as: UTF8.self)
    }

    /// The attributes a session row keeps as `sessionJSON`; none for text that is not such JSON.
    package init(sessionJSON text: String?) {
        self.init()
        if let fields = (try? JSONParser.parse(text ?? "{}"))?.objectValue { try? apply(fields) }
    }
}
