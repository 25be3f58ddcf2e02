public import HearthCore
public import HearthStore

/// One Firestore `ListenResponse`: what a session's client receives, in order.
public enum ListenResponse: Sendable, Equatable {
    /// `targetChange`.
    case targetChange(TargetChange)
    /// `documentChange`: the document was added to, or changed in, the targets `targetIDs`.
    case documentChange(ListenDocument, targetIDs: [Int32])
    /// `documentDelete`: the document was deleted; it leaves `removedTargetIDs`.
    case documentDelete(name: String, removedTargetIDs: [Int32], readTime: Timestamp)
    /// `documentRemove`: the document still exists but left `removedTargetIDs` (it stopped matching, or a limit
    /// pushed it out).
    case documentRemove(name: String, removedTargetIDs: [Int32], readTime: Timestamp)
    /// `filter` (an existence filter): how many documents the target holds now, so a resumed client can check
    /// that it holds the same number.
    case filter(targetID: Int32, count: Int)
}

/// Firestore's `TargetChange`.
public struct TargetChange: Sendable, Equatable {
    /// `targetChangeType`.
    public enum Kind: String, Sendable, Equatable {
        /// Nothing about the targets changed; with no target IDs and a read time it marks a consistent snapshot of
        /// every target on the stream.
        case noChange = "NO_CHANGE"
        /// The targets were added.
        case add = "ADD"
        /// The targets were removed (with `cause` when it was not the client's request).
        case remove = "REMOVE"
        /// The targets' initial results have all been sent.
        case current = "CURRENT"
        /// The targets' results are being sent again from scratch: drop what is held for them.
        case reset = "RESET"
    }

    /// The kind of change.
    public var kind: Kind
    /// The targets it concerns; empty means every target on the stream.
    public var targetIDs: [Int32]
    /// Why the targets were removed, when an error removed them.
    public var cause: HearthError?
    /// Where to resume the targets (every target on the stream when `targetIDs` is empty).
    public var resumeToken: ResumeToken?
    /// The commit time the targets are consistent at.
    public var readTime: Timestamp?

    /// Whether this is a consistency marker: `NO_CHANGE` for every target of the stream.
    public var isMarker: Bool { kind == .noChange && targetIDs.isEmpty && cause == nil }

    /// A target change.
    public init(
        _ kind: Kind, targetIDs: [Int32] = [], cause: HearthError? = nil, resumeToken: ResumeToken? = nil,
        readTime: Timestamp? = nil
    ) {
        self.kind = kind
        self.targetIDs = targetIDs
        self.cause = cause
        self.resumeToken = resumeToken
        self.readTime = readTime
    }
}

/// A document as listeners receive it: its Firestore `Document` JSON, encoded once per change and database and
/// shared by every session that receives it. A class, so handing one to ten thousand sessions copies a reference.
public final class ListenDocument: Sendable, Equatable {
    /// The document's full resource name.
    public let name: String
    /// The stored document.
    public let document: StoredDocument
    /// The database its name is under.
    public let database: DatabaseName
    /// Its Firestore REST `Document` JSON.
    public let json: [UInt8]

    /// Encodes a stored document for `database`.
    public init(_ document: StoredDocument, database: DatabaseName) {
        name = database.name(of: document.path)
        self.document = document
        self.database = database
        var buffer: [UInt8] = []
        buffer.reserveCapacity(document.fieldsJSON.count + name.utf8.count + 96)
        buffer.append(contentsOf: #"{"name":"#.utf8)
        JSONWriter.appendString(name, into: &buffer)
        // The stored fields are already Firestore JSON: spliced in, never decoded.
        if document.fieldsJSON != Array("{}".utf8) {
            buffer.append(contentsOf: #","fields":"#.utf8)
            buffer.append(contentsOf: document.fieldsJSON)
        }
        buffer.append(contentsOf: #","createTime":""#.utf8)
        document.createTime.appendRFC3339(to: &buffer)
        buffer.append(contentsOf: #"","updateTime":""#.utf8)
        document.updateTime.appendRFC3339(to: &buffer)
        buffer.append(contentsOf: #""}"#.utf8)
        json = buffer
    }

    /// The document's path.
    public var path: ResourcePath { document.path }

    /// Equal when they encode the same document the same way.
    public static func == (lhs: ListenDocument, rhs: ListenDocument) -> Bool {
        lhs === rhs || lhs.json == rhs.json
    }
}
