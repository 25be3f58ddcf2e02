/// A value the server fills in when it applies a write: `{".sv": "timestamp"}` or `{".sv": {"increment": n}}`.
public enum ServerValue: Sendable, Hashable {
    /// The commit time in milliseconds since the Unix epoch.
    case timestamp
    /// The current number at the location plus `delta` (an integer or a double); `delta` itself when the location
    /// holds no number.
    case increment(TreeLeaf)

    /// Reads the `.sv` member's value.
    /// - Throws: `INVALID_ARGUMENT` for anything but `"timestamp"` or `{"increment": number}`.
    public init(sv: JSONValue) throws(HearthError) {
        switch sv {
        case .string("timestamp"):
            self = .timestamp
        case .object(let members):
            guard members.count == 1, let delta = members["increment"] else { throw Self.unrecognized }
            switch delta {
            case .integer(let value): self = .increment(.integer(value))
            case .double(let value): self = .increment(.double(value))
            default: throw HearthError.invalidArgument("Invalid data; the increment server value needs a number.")
            }
        default:
            throw Self.unrecognized
        }
    }

    private static let unrecognized = HearthError.invalidArgument(
        "Invalid data; the request contains an unrecognized server value (use {\".sv\": \"timestamp\"} or {\".sv\": {\"increment\": n}})."
    )

    /// The value this server value becomes, given the commit time and the leaf now at its location.
    public func resolve(nowMillis: Int64, current: TreeNode?) -> TreeLeaf {
        switch self {
        case .timestamp:
            return .integer(nowMillis)
        case .increment(let delta):
            switch (current?.leafValue, delta) {
            case (.integer(let a)?, .integer(let b)):
                let (sum, overflow) = a.addingReportingOverflow(b)
                return overflow ? .double(Double(a) + Double(b)) : .integer(sum)
            case (.integer(let a)?, .double(let b)): return .double(Double(a) + b)
            case (.double(let a)?, .integer(let b)): return .double(a + Double(b))
            case (.double(let a)?, .double(let b)): return .double(a + b)
            default: return delta
            }
        }
    }
}
