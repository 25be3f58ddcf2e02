package import HearthCore

/// The storage key of a tree location: the namespace's UTF-8 bytes, `0x00`, then `0x01` and the UTF-8 bytes of
/// each key.
///
/// Keys never contain bytes below `0x20`, so the encoding is order-preserving: a location and everything below it
/// occupy the contiguous range [`key(P)`, `key(P)` + `0x02`) — the node's own row first, then its descendants in
/// depth-first order with siblings by UTF-8 bytes — and a read or replacement of a subtree is one range in the
/// primary-key B-tree. A node's priority is stored as a pseudo-child named `.priority`, which no real key can be.
package enum TreeKeyCodec {
    /// The pseudo-key under which a node's priority is stored.
    package static let priorityKey = ".priority"

    /// The key of `path` in `namespace`.
    package static func key(_ namespace: String, _ path: TreePath) -> [UInt8] {
        var bytes = Array(namespace.utf8)
        bytes.append(0x00)
        for segment in path.segments { append(segment, to: &bytes) }
        return bytes
    }

    /// Appends one path segment.
    package static func append(_ segment: String, to bytes: inout [UInt8]) {
        bytes.append(0x01)
        bytes.append(contentsOf: segment.utf8)
    }

    /// The first key past the subtree whose root has key `key`.
    package static func subtreeEnd(_ key: [UInt8]) -> [UInt8] { key + [0x02] }

    /// The row holding the priority of the node at `key`.
    package static func priority(_ key: [UInt8]) -> [UInt8] {
        var bytes = key
        append(priorityKey, to: &bytes)
        return bytes
    }

    /// The segments below `prefixLength` bytes of `key` (which start with `0x01`).
    package static func segments(of key: UnsafeRawBufferPointer, after prefixLength: Int) -> [String] {
        guard key.count > prefixLength else { return [] }
        var segments: [String] = []
        var start = prefixLength + 1
        var index = start
        while index <= key.count {
            if index == key.count || key[index] == 0x01 {
                segments.append(String(decoding: UnsafeRawBufferPointer(rebasing: key[start..<index]), as: UTF8.self))
                start = index + 1
            }
            index += 1
        }
        return segments
    }
}
