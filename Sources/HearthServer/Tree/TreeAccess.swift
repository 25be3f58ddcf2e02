import HearthCore

/// The one place the tree asks whether a caller may read or write a location: checked on every REST request, when
/// a stream opens, and again for each open stream whenever rules change or on each keep-alive (a stream that may no
/// longer read gets `cancel`). Rules enforcement is a later issue; until then every caller may do everything, and
/// the rules engine replaces ``TreeAccess/allowAll`` here.
struct TreeAccess: Sendable {
    /// Whether `auth` may read `path` in `namespace`.
    var canRead: @Sendable (_ namespace: String, _ path: TreePath, _ auth: AuthContext?) -> Bool
    /// Whether `auth` may write `path` in `namespace`.
    var canWrite: @Sendable (_ namespace: String, _ path: TreePath, _ auth: AuthContext?) -> Bool

    /// No rules: everyone may read and write everything.
    static let allowAll = TreeAccess(canRead: { _, _, _ in true }, canWrite: { _, _, _ in true })
}
