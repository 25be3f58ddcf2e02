package import HearthCore

/// The row-level operations a tree engine offers inside one transaction, on the `tree_nodes` layout every engine
/// shares: one row per leaf and per priority, keyed by ``TreeKeyCodec`` so that a subtree is one key range. The tree's
/// logic (reads, PUT semantics, the write applier) is written once on these (`TreeRowAccess+Operations`,
/// ``TreeWriteApplier``); an engine supplies only the storage of rows and of change-log entries.
///
/// Every range is half-open, `[lower, upper)`, in byte order.
package protocol TreeRowAccess {
    /// Calls `body` for each row in `[lower, upper)` in key order, with its key and leaf.
    func forEachRow(
        from lower: [UInt8], to upper: [UInt8], _ body: (_ key: UnsafeRawBufferPointer, _ leaf: TreeLeaf) throws -> Void
    ) throws

    /// The leaf stored at exactly `key`, or `nil`.
    func leaf(at key: [UInt8]) throws -> TreeLeaf?

    /// The smallest key strictly above `lower` and below `upper`, or `nil`.
    func firstKey(above lower: [UInt8], below upper: [UInt8]) throws -> [UInt8]?

    /// Whether a row other than `excluded` lies in `[lower, upper)`.
    func hasRow(from lower: [UInt8], to upper: [UInt8], excluding excluded: [UInt8]) throws -> Bool

    /// Deletes every row in `[lower, upper)`.
    func deleteRows(from lower: [UInt8], to upper: [UInt8]) throws

    /// Deletes the row at `key`, if any.
    func deleteRow(at key: [UInt8]) throws

    /// Inserts rows whose keys are not stored yet (a PUT deleted their range first).
    func insertRows(_ rows: [(key: [UInt8], leaf: TreeLeaf)]) throws

    /// Appends a committed write to the tree's change log and returns it with the sequence number it was given. An
    /// engine that numbers its writes last, just before `COMMIT` (PostgreSQL's), returns it unnumbered and appends it
    /// itself once the rest of the write is done.
    func appendChange(
        commitTime: Int64, namespace: String, kind: TreeChange.Kind, path: TreePath, updates: [TreeChange.Update]
    ) throws -> TreeChange
}
