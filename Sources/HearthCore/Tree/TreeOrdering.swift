/// Firebase's order of values, used by `orderBy` queries.
public enum TreeOrdering {
    /// Compares two child values for `orderBy="$value"` or `orderBy="child"`: missing (null) first, then `false`,
    /// `true`, numbers ascending (integers and doubles by mathematical value), strings by UTF-16 code units, and
    /// last objects, which all tie with each other.
    /// - Returns: a negative number, zero or a positive number.
    public static func compareValues(_ lhs: TreeNode?, _ rhs: TreeNode?) -> Int {
        let (a, b) = (rank(lhs), rank(rhs))
        if a != b { return a < b ? -1 : 1 }
        guard let left = lhs?.leafValue, let right = rhs?.leafValue else { return 0 }
        return compareLeaves(left, right)
    }

    /// Compares two priorities: none first, then numbers ascending, then strings.
    public static func comparePriorities(_ lhs: TreeLeaf?, _ rhs: TreeLeaf?) -> Int {
        let (a, b) = (priorityRank(lhs), priorityRank(rhs))
        if a != b { return a < b ? -1 : 1 }
        guard let lhs, let rhs else { return 0 }
        return compareLeaves(lhs, rhs)
    }

    /// Compares leaves of the same rank (two Booleans, two numbers or two strings).
    static func compareLeaves(_ lhs: TreeLeaf, _ rhs: TreeLeaf) -> Int {
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.integer(let a), .integer(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.double(let a), .double(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.integer(let a), .double(let b)): return -Value.compareDoubleToInteger(b, a)
        case (.double(let a), .integer(let b)): return Value.compareDoubleToInteger(a, b)
        case (.string(let a), .string(let b)): return TreeKey.compareUTF16(a, b)
        default: return 0
        }
    }

    /// null 0, false 1, true 2, number 3, string 4, object 5.
    static func rank(_ node: TreeNode?) -> Int {
        guard let node else { return 0 }
        switch node.content {
        case .leaf(.bool(false)): return 1
        case .leaf(.bool(true)): return 2
        case .leaf(.integer), .leaf(.double): return 3
        case .leaf(.string): return 4
        case .children: return 5
        }
    }

    private static func priorityRank(_ priority: TreeLeaf?) -> Int {
        switch priority {
        case nil: 0
        case .integer?, .double?: 1
        case .string?: 2
        case .bool?: 3
        }
    }
}
