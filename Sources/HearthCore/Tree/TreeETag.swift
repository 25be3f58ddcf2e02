/// The ETag of a node: base64 of the SHA-1 of its export-format JSON (sorted keys, priorities included), so equal
/// data always has the same tag and any change of value or priority changes it.
public enum TreeETag {
    /// The tag of `node` (`nil` is the tag of `null`).
    public static func of(_ node: TreeNode?) -> String {
        Base64URL.encodeStandard(SHA1.digest(TreeNode.json(node, .export).serialized()))
    }
}
