/// Firebase Realtime Database's documented limits, enforced the same way so data written to Hearth can move to
/// Firebase (and back) and every client library's own checks agree with the server's.
public enum TreeLimits {
    /// The longest key, in UTF-8 bytes.
    public static let maxKeyBytes = 768
    /// The deepest a node may sit below the root (path segments plus the depth of the written value).
    public static let maxDepth = 32
    /// The longest string value, in UTF-8 bytes (10 MB).
    public static let maxStringBytes = 10 * 1024 * 1024
    /// The most nodes a multi-path update may name.
    public static let maxUpdatePaths = 10_000
}
