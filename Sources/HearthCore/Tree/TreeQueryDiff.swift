extension TreeQuery {
    /// The event that turns a streamed query's previous window into its new one, or `nil` when nothing in the
    /// window changed: a child that left is `null`, one that entered or changed is its new value. One child is a
    /// `put` at its path; several are one `patch` at `/`.
    public static func event(from old: [String: TreeNode], to new: [String: TreeNode]) -> TreeEvent? {
        var updates: [TreeChange.Update] = []
        for (key, node) in new where old[key] != node {
            updates.append(TreeChange.Update(path: TreePath(segments: [key]), node: node))
        }
        for key in old.keys where new[key] == nil {
            updates.append(TreeChange.Update(path: TreePath(segments: [key]), node: nil))
        }
        guard !updates.isEmpty else { return nil }
        if updates.count == 1 { return .put(path: updates[0].path, node: updates[0].node) }
        updates.sort { $0.path < $1.path }
        return .patch(path: .root, updates: updates)
    }
}
