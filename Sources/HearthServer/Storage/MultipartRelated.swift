import HearthCore
import HearthHTTP
import HearthStorage

/// A `multipart/related` upload body as Firebase's and Google's clients send it: a JSON metadata part, then the
/// file part with its own `Content-Type` (RFC 2387).
struct MultipartRelated {
    /// The metadata part's bytes (JSON).
    var metadata: [UInt8]
    /// The file's bytes.
    var file: [UInt8]
    /// The file part's `Content-Type`, if it has one.
    var contentType: String?

    /// A multipart upload's object: the name (from the metadata part, else `?name=`), its attributes (the file
    /// part's `Content-Type`, then the metadata's fields) and its bytes.
    static func upload(
        _ request: HTTPRequest
    ) throws(HearthError) -> (
        name: String, attributes: ObjectAttributes, file: [UInt8]
    ) {
        let parts = try parse(body: request.body, contentType: request.headers["Content-Type"])
        var metadata = try StorageAPI.jsonObject(parts.metadata)
        let name = metadata["name"]?.stringValue ?? request.queryValue("name") ?? ""
        guard !name.isEmpty else { throw .invalidArgument("The upload's metadata must name the object.") }
        try ObjectName.validate(name)
        metadata["name"] = nil
        var attributes = ObjectAttributes(contentType: parts.contentType)
        try attributes.apply(metadata)
        return (name, attributes, parts.file)
    }

    /// Splits `body` at the boundary named in `contentType`.
    /// - Throws: `INVALID_ARGUMENT` for a missing boundary, a missing closing delimiter or fewer than two parts.
    static func parse(body: [UInt8], contentType: String?) throws(HearthError) -> MultipartRelated {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/"),
            let boundary = boundary(in: contentType), !boundary.isEmpty
        else {
            throw .invalidArgument("A multipart upload needs Content-Type: multipart/related; boundary=….")
        }
        let delimiter = Array("--\(boundary)".utf8)
        var positions: [Int] = []
        var index = 0
        while let found = find(delimiter, in: body, from: index) {
            positions.append(found)
            index = found + delimiter.count
        }
        guard positions.count >= 3 else {
            throw .invalidArgument("The multipart body must hold a metadata part and a file part, each delimited.")
        }
        let closing = positions[2] + delimiter.count
        guard body.count >= closing + 2, body[closing] == UInt8(ascii: "-"), body[closing + 1] == UInt8(ascii: "-")
        else { throw .invalidArgument("The multipart body has more than two parts or no closing delimiter.") }
        let first = try part(body, from: positions[0] + delimiter.count, to: positions[1])
        let second = try part(body, from: positions[1] + delimiter.count, to: positions[2])
        return MultipartRelated(metadata: first.body, file: second.body, contentType: second.contentType)
    }

    /// One part between delimiters: its header lines, a blank line, its bytes (the CRLF before the next delimiter
    /// belongs to the delimiter).
    private static func part(
        _ body: [UInt8], from start: Int, to end: Int
    ) throws(HearthError)
        -> (body: [UInt8], contentType: String?)
    {
        let crlf: [UInt8] = [13, 10]
        guard let headerEnd = find(crlf + crlf, in: body, from: start), headerEnd < end else {
            throw .invalidArgument("A multipart part lacks its header block.")
        }
        var contentType: String?
        let headerText = String(decoding: body[start..<headerEnd], as: UTF8.self)
        for line in headerText.split(separator: "\r\n") {
            let pieces = line.split(separator: ":", maxSplits: 1)
            if pieces.count == 2, pieces[0].lowercased() == "content-type" {
                contentType = String(pieces[1].drop { $0 == " " || $0 == "\t" })
            }
        }
        var contentEnd = end
        if contentEnd >= 2, body[contentEnd - 2] == 13, body[contentEnd - 1] == 10 { contentEnd -= 2 }
        let contentStart = headerEnd + 4
        guard contentStart <= contentEnd else { throw .invalidArgument("A multipart part is truncated.") }
        return (Array(body[contentStart..<contentEnd]), contentType)
    }

    private static func boundary(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].drop(while: { $0 == " " }).lowercased() == "boundary" else { continue }
            var value = Substring(pair[1])
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return String(value)
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else {
            return nil
        }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
