public import HearthCore

/// One Firestore `ListenRequest`: add a target to a session, or remove one.
public enum ListenRequest: Sendable, Equatable {
    /// `addTarget`.
    case addTarget(ListenTarget)
    /// `removeTarget`: the target's ID.
    case removeTarget(Int32)
}

/// A Firestore `Target`: what to watch, under which ID, and where a previous listen left off.
public struct ListenTarget: Sendable, Equatable {
    /// What a target watches.
    public enum Kind: Sendable, Equatable {
        /// `documents`: these documents, present or not.
        case documents([ResourcePath])
        /// `query`: the results of a structured query (without `select` or `offset`, which listeners do not take).
        case query(StructuredQuery)
    }

    /// The client's ID for the target, unique on its session; 0 asks the server to pick one (told in the `ADD`).
    public var id: Int32
    /// What it watches.
    public var kind: Kind
    /// Where a previous listen of the same target stopped; only changes since are sent when the log still covers it.
    public var resumeToken: ResumeToken?
    /// Remove the target as soon as it is current (a one-time read over the listen channel).
    public var once: Bool

    /// A target.
    public init(id: Int32, kind: Kind, resumeToken: ResumeToken? = nil, once: Bool = false) {
        self.id = id
        self.kind = kind
        self.resumeToken = resumeToken
        self.once = once
    }
}
