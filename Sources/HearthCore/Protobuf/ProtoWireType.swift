/// How a protobuf field's value is laid out on the wire: the low three bits of its tag.
public enum ProtoWireType: UInt8, Sendable {
    /// A base-128 varint: `int32`, `int64`, `uint*`, `sint*`, `bool`, `enum`.
    case varint = 0
    /// Eight little-endian bytes: `fixed64`, `sfixed64`, `double`.
    case fixed64 = 1
    /// A varint length, then that many bytes: `string`, `bytes`, messages, packed repeated scalars.
    case lengthDelimited = 2
    /// The start of a group (proto2 only; skipped as an unknown field).
    case startGroup = 3
    /// The end of a group.
    case endGroup = 4
    /// Four little-endian bytes: `fixed32`, `sfixed32`, `float`.
    case fixed32 = 5
}

/// One field's tag as read from the wire: its number and how its value is laid out.
public struct ProtoTag: Sendable, Equatable {
    /// The field number, 1 ... 2^29 - 1.
    public var number: Int
    /// The wire type.
    public var wireType: ProtoWireType

    /// A tag.
    public init(number: Int, wireType: ProtoWireType) {
        self.number = number
        self.wireType = wireType
    }

    /// The largest field number protobuf allows.
    public static let maxFieldNumber = (1 << 29) - 1
}

/// The limits every protobuf message Hearth reads is held to, so hostile input costs bounded work.
public enum ProtoLimits {
    /// The largest message read: Firestore's request limit, 10 MiB.
    public static let maxMessageBytes = 10 * 1024 * 1024
    /// The deepest nesting of messages (and groups being skipped), as protobuf runtimes bound recursion by
    /// default. A Firestore document nested to its limit of 20 maps is about 67 message levels deep in a commit.
    public static let maxDepth = 100
}
