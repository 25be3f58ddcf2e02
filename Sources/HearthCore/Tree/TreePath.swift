/// A location in the tree: the keys from the root down, `[]` for the root.
///
/// Written `/a/b/c` (the root is `/`). Parsing ignores empty segments, so `a//b/` and `/a/b` name the same place,
/// as Firebase's clients do.
public struct TreePath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The keys from the root down.
    public private(set) var segments: [String]

    /// The root.
    public static let root = TreePath(segments: [])

    /// A path from keys that are already known to be valid.
    public init(segments: [String]) {
        self.segments = segments
    }

    /// Parses `/a/b`, checking every key and the depth.
    /// - Throws: `INVALID_ARGUMENT` naming the first invalid key.
    public init(validating text: some StringProtocol) throws(HearthError) {
        let segments = text.split(separator: Character("/")).map { String($0) }
        if segments.count > TreeLimits.maxDepth {
            throw .invalidArgument("Invalid path: it is deeper than \(TreeLimits.maxDepth) levels.")
        }
        for segment in segments {
            if let problem = TreeKey.problem(with: segment) {
                throw .invalidArgument("Invalid path: \(problem).")
            }
        }
        self.segments = segments
    }

    /// Whether this is the root.
    public var isRoot: Bool { segments.isEmpty }
    /// The number of keys.
    public var count: Int { segments.count }
    /// The last key; `nil` at the root.
    public var lastKey: String? { segments.last }
    /// The parent; the root's parent is the root.
    public var parent: TreePath { TreePath(segments: Array(segments.dropLast())) }

    /// This path extended by one key.
    public func child(_ key: String) -> TreePath {
        var copy = self
        copy.segments.append(key)
        return copy
    }

    /// This path extended by `other`.
    public func appending(_ other: TreePath) -> TreePath {
        var copy = self
        copy.segments += other.segments
        return copy
    }

    /// Whether `self` is `other` or one of its ancestors.
    public func contains(_ other: TreePath) -> Bool {
        other.segments.count >= segments.count && other.segments.starts(with: segments)
    }

    /// `other` relative to `self` when `self` contains it (`/a`.relative(`/a/b/c`) is `/b/c`), otherwise `nil`.
    public func relative(_ other: TreePath) -> TreePath? {
        guard contains(other) else { return nil }
        return TreePath(segments: Array(other.segments[segments.count...]))
    }

    /// `/a/b`, or `/` for the root.
    public var description: String {
        segments.isEmpty ? "/" : "/" + segments.joined(separator: "/")
    }

    /// Orders by segments, each by its UTF-8 bytes: the order of the storage keys.
    public static func < (lhs: TreePath, rhs: TreePath) -> Bool {
        for (a, b) in zip(lhs.segments, rhs.segments) where a != b {
            return Value.compareBytes(a.utf8, b.utf8) < 0
        }
        return lhs.segments.count < rhs.segments.count
    }
}
