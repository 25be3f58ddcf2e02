/// How Firestore's typed JSON is read, by where it comes from. One decoder serves all three, so each kind's rules
/// live in one place and only these choices differ.
struct ValueReading: Sendable {
    /// Whether field names are held to Firestore's rules (not empty, not `__.*__`, at most 1,500 bytes).
    var checksNames: Bool
    /// Whether a reference's IDs are held to a document path's rules (no reserved `__.*__`, no `.` or `..`).
    var checksReferenceIDs: Bool
    /// Whether timestamps are cut to microseconds, the precision Firestore stores.
    var truncatesTimestamps: Bool

    /// A value a client writes: checked, and stored at Firestore's precision.
    static let written = ValueReading(checksNames: true, checksReferenceIDs: true, truncatesTimestamps: true)
    /// A query operand or cursor value: compared at the precision the client gave, and a reference may name any
    /// path, since it only positions (the admin clients bound recursive deletes by `__id-9223372036854775808__`).
    static let operand = ValueReading(checksNames: true, checksReferenceIDs: false, truncatesTimestamps: false)
    /// Data Hearth stored or served itself: checked when it was written and not again, so a document stored
    /// before a naming rule existed stays readable.
    static let stored = ValueReading(checksNames: false, checksReferenceIDs: false, truncatesTimestamps: true)
}
