/// A `Range: bytes=…` request header against a body of known size (RFC 9110 §14).
///
/// Only a single range is served as 206; a list of ranges is answered with the whole body (200), which the RFC
/// allows, since no client of Hearth's file APIs asks for `multipart/byteranges`.
public enum HTTPByteRange: Equatable, Sendable {
    /// No usable `Range` header: send the whole body (200).
    case whole
    /// Send these bytes (206 with `Content-Range`).
    case partial(ClosedRange<UInt64>)
    /// The range lies outside the body: 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    /// The range `header` asks for in a body of `size` bytes.
    public init(header: String?, size: UInt64) {
        guard let header, header.hasPrefix("bytes=") else {
            self = .whole
            return
        }
        let spec = header.dropFirst("bytes=".count).trimmedBlanks()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let first = spec[..<dash].trimmedBlanks()
        let last = spec[spec.index(after: dash)...].trimmedBlanks()
        if first.isEmpty {
            // `bytes=-N`: the final N bytes.
            guard let suffix = UInt64(last) else {
                self = .whole
                return
            }
            guard suffix > 0, size > 0 else {
                self = .unsatisfiable
                return
            }
            self = .partial((size - min(suffix, size))...(size - 1))
            return
        }
        guard let start = UInt64(first) else {
            self = .whole
            return
        }
        let end: UInt64
        if last.isEmpty {
            end = size &- 1
        } else {
            guard let parsed = UInt64(last), parsed >= start else {
                // An invalid range-spec is ignored (RFC 9110 §14.2): the whole body.
                self = .whole
                return
            }
            end = min(parsed, size &- 1)
        }
        guard start < size else {
            self = .unsatisfiable
            return
        }
        self = .partial(start...end)
    }
}

extension HTTPResponse {
    /// The answer serving the open file `descriptor` of `size` bytes, honouring `range` (a request's `Range`
    /// header): 200 with the whole file, 206 with `Content-Range` for one range, or 416 (and the descriptor closed)
    /// for a range outside the file. `headers` go on the 200 and the 206; `Accept-Ranges: bytes` is added.
    public static func file(
        descriptor: Int32, size: UInt64, range: String?, status: Int = 200, headers: HTTPHeaders = []
    ) -> HTTPResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Accept-Ranges", value: "bytes")
        switch HTTPByteRange(header: range, size: size) {
        case .whole:
            var response = HTTPResponse(status: status, headers: headers)
            response.file = HTTPFileBody(descriptor: descriptor, length: size)
            return response
        case .partial(let bytes):
            headers.replaceOrAdd(
                name: "Content-Range", value: "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(size)")
            var response = HTTPResponse(status: 206, headers: headers)
            response.file = HTTPFileBody(
                descriptor: descriptor, offset: bytes.lowerBound, length: bytes.upperBound - bytes.lowerBound + 1)
            return response
        case .unsatisfiable:
            _ = HTTPFileBody(descriptor: descriptor, length: 0)
            return HTTPResponse(status: 416, headers: [("Content-Range", "bytes */\(size)")])
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmedBlanks() -> Substring {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
