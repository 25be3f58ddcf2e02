/// Turns the bytes of one HTTP/1.1 response into its head and Server-Sent Events, fed as they arrive: the head, a
/// chunked body (or one of `Content-Length` bytes, as an error answer is), and SSE blocks split at blank lines.
struct EventStreamParser {
    /// What one feeding produced.
    struct Output {
        var head: Head?
        var events: [StreamEvent] = []
        /// Comment-only blocks (heartbeats such as `: ping`).
        var comments = 0
        var failure: String?
    }

    /// The response head.
    struct Head {
        var status: Int
        /// Lower-cased names.
        var headers: [String: String]
        /// The status line and header lines as received.
        var text: String
    }

    private var raw: [UInt8] = []
    private var body: [UInt8] = []
    private var headDone = false
    private var chunked = false
    private var contentLength: Int?
    /// Whether the body ended (the last chunk, or `Content-Length` bytes).
    private(set) var finished = false
    /// The body of a response that is not an event stream, as far as it came.
    var plainBody: [UInt8] { body }

    mutating func feed(_ bytes: ArraySlice<UInt8>) -> Output {
        var output = Output()
        raw += bytes
        if !headDone {
            guard let end = Self.find([13, 10, 13, 10], in: raw) else { return output }
            let text = String(decoding: raw[..<end], as: UTF8.self)
            let lines = text.components(separatedBy: "\r\n")
            let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingSpaces()
            }
            output.head = Head(status: status, headers: headers, text: text)
            chunked = headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false
            contentLength = headers["content-length"].flatMap { Int($0) }
            raw.removeFirst(end + 4)
            headDone = true
        }
        if chunked {
            while let lineEnd = Self.find([13, 10], in: raw) {
                let sizeText = String(decoding: raw[..<lineEnd], as: UTF8.self)
                guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else {
                    output.failure = "bad chunk header"
                    finished = true
                    break
                }
                if size == 0 {
                    finished = true
                    break
                }
                guard raw.count >= lineEnd + 2 + size + 2 else { break }
                body += raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
                raw.removeFirst(lineEnd + 2 + size + 2)
            }
        } else {
            body += raw
            raw.removeAll()
            if let contentLength, body.count >= contentLength { finished = true }
        }
        while let end = Self.find([10, 10], in: body) {
            let block = String(decoding: body[..<end], as: UTF8.self)
            body.removeFirst(end + 2)
            if let event = Self.parse(block) { output.events.append(event) } else { output.comments += 1 }
        }
        return output
    }

    /// One event block: the event, or `nil` for a block of comments only.
    static func parse(_ block: String) -> StreamEvent? {
        var name: String?
        var data: [String] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("event:") {
                name = String(line.dropFirst(6)).trimmingSpaces()
            } else if line.hasPrefix("data:") {
                var value = line.dropFirst(5)
                if value.first == " " { value = value.dropFirst() }
                data.append(String(value))
            }
        }
        if data.isEmpty && name == nil { return nil }
        return StreamEvent(name: name, data: data.joined(separator: "\n"))
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
