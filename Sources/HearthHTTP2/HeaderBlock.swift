internal import CNGHTTP2

/// Header fields as the nghttp2_nv array the submit functions take. The library copies the fields before
/// returning, so the bytes need only live for the call.
enum HeaderBlock {
    static func with<R>(
        _ fields: [(name: String, value: String)], _ body: (UnsafePointer<nghttp2_nv>, Int) -> R
    ) -> R {
        // One buffer for every name and value, so building the array costs one allocation.
        var bytes: [UInt8] = []
        var spans: [(name: Range<Int>, value: Range<Int>)] = []
        spans.reserveCapacity(fields.count)
        for field in fields {
            let nameStart = bytes.count
            // HTTP/2 field names are lowercase (RFC 9113 §8.2.1); a peer must reject others.
            bytes += field.name.lowercased().utf8
            let valueStart = bytes.count
            bytes += field.value.utf8
            spans.append((nameStart..<valueStart, valueStart..<bytes.count))
        }
        if bytes.isEmpty { bytes = [0] }
        return bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let nva = spans.map { span in
                nghttp2_nv(
                    name: base + span.name.lowerBound, value: base + span.value.lowerBound,
                    namelen: span.name.count, valuelen: span.value.count,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return nva.withUnsafeBufferPointer { array in
                if let first = array.baseAddress { return body(first, array.count) }
                // An empty block still needs a valid pointer.
                var none = nghttp2_nv()
                return withUnsafePointer(to: &none) { body($0, 0) }
            }
        }
    }
}
