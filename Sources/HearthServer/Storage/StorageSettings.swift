/// `hearth serve`'s settings for file storage (`--storage-max-object-bytes`).
public struct StorageSettings: Sendable, Equatable {
    /// The largest object accepted, in bytes; a larger upload is refused with 413 before its bytes are stored.
    public var maxObjectBytes: Int = 5 << 30

    /// The defaults.
    public init() {}
}
