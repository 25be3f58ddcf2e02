import HearthCore
import HearthHTTP
import HearthStorage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `multipart/related` upload body as Firebase's and Google's clients send it (RFC 2387): a JSON metadata part,
/// then the file part with its own `Content-Type`, read as it arrives.
///
/// Only the head — the preamble, both parts' headers and the metadata — is held in memory, at most
/// `maxHeadBytes`; the file part's bytes are handed on chunk by chunk, so a multipart upload streams to disk like a
/// media upload. The only bytes held back are the few at a chunk's end that could begin the closing delimiter.
struct MultipartRelated {
    /// What the head says: the metadata part's bytes (JSON) and the file part's `Content-Type`, if it has one.
    struct Head {
        var metadata: [UInt8]
        var contentType: String?
        /// How many body bytes came before the file's first byte.
        var fileOffset: Int
        /// How many follow its last byte in a body without an epilogue: the delimiter and its closing `--`.
        var closingBytes: Int
    }

    /// The most the preamble, both parts' headers and the metadata part may take together. Cloud Storage keeps an
    /// object's custom metadata to 8 KiB, so this leaves room for every valid upload.
    static let maxHeadBytes = 64 * 1024

    private enum Stage {
        /// Collecting the head.
        case head
        /// Passing on the file's bytes until the delimiter after them.
        case file
        /// After the file part's delimiter: `--` closes the body; anything else starts a third part.
        case tail
        /// Closed; an epilogue, if any, is ignored.
        case done
    }

    /// `--` and the boundary: what opens the first part.
    private let delimiter: [UInt8]
    /// CRLF, `--` and the boundary: what ends a part (the CRLF belongs to the delimiter, not to the part).
    private let partEnd: [UInt8]
    private var stage = Stage.head
    private var collected: [UInt8] = []
    /// The file stage's held-back bytes, then the scratch buffer it searches in.
    private var pending: [UInt8] = []
    private var scratch: [UInt8] = []

    /// A reader for the boundary named in `contentType`.
    /// - Throws: `INVALID_ARGUMENT` unless `contentType` is `multipart/…` with a `boundary` of 1–70 characters.
    init(contentType: String?) throws(HearthError) {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/"),
            let boundary = Self.boundary(in: contentType), (1...70).contains(boundary.utf8.count)
        else {
            throw .invalidArgument("A multipart upload needs Content-Type: multipart/related; boundary=….")
        }
        delimiter = Array("--\(boundary)".utf8)
        partEnd = [13, 10] + delimiter
    }

    /// Reads the next chunk: `head` is called once, when the file part's first byte is next; `file` with each run of
    /// the file's bytes, in order.
    /// - Throws: `INVALID_ARGUMENT` for a head past `maxHeadBytes`, a body with one part or more than two; and
    ///   whatever `head` or `file` throws.
    mutating func read(
        _ chunk: UnsafeRawBufferPointer,
        head: (Head) throws(HearthError) -> Void,
        file: (UnsafeRawBufferPointer) throws(HearthError) -> Void
    ) throws(HearthError) {
        switch stage {
        case .head:
            collected.append(contentsOf: chunk)
            guard let (parsed, fileStart) = try parseHead() else {
                guard collected.count <= Self.maxHeadBytes else {
                    throw .invalidArgument(
                        "The multipart body's headers and metadata part are larger than \(Self.maxHeadBytes) bytes.")
                }
                return
            }
            stage = .file
            try head(parsed)
            let rest = Array(collected[fileStart...])
            collected = []
            var failure: HearthError?
            rest.withUnsafeBytes { bytes in
                do throws(HearthError) { try readFile(bytes, file: file) } catch { failure = error }
            }
            if let failure { throw failure }
        case .file:
            try readFile(chunk, file: file)
        case .tail:
            collected.append(contentsOf: chunk)
            try readTail()
        case .done:
            break
        }
    }

    /// Checks that the body ended after its closing delimiter.
    /// - Throws: `INVALID_ARGUMENT` for a body that stopped earlier.
    func finish() throws(HearthError) {
        switch stage {
        case .done:
            return
        case .head:
            throw .invalidArgument("The multipart body must hold a metadata part and a file part, each delimited.")
        case .file, .tail:
            throw .invalidArgument("The multipart body ends before its closing delimiter; nothing was stored.")
        }
    }

    /// The head, once `collected` holds it: the metadata part and the file part's headers, and where the file's
    /// bytes start in `collected`; nil while more is needed.
    private func parseHead() throws(HearthError) -> (Head, Int)? {
        let crlf: [UInt8] = [13, 10]
        guard let opening = Self.find(delimiter, in: collected, from: 0) else { return nil }
        let firstHeaders = opening + delimiter.count
        guard let metadataEnd = Self.find(crlf + crlf, in: collected, from: firstHeaders) else { return nil }
        let metadataStart = metadataEnd + 4
        guard let second = Self.find(partEnd, in: collected, from: metadataStart) else { return nil }
        let afterSecond = second + partEnd.count
        guard collected.count >= afterSecond + 2 else { return nil }
        if collected[afterSecond] == UInt8(ascii: "-") && collected[afterSecond + 1] == UInt8(ascii: "-") {
            throw .invalidArgument("The multipart body must hold a metadata part and a file part, each delimited.")
        }
        guard let fileHeadersEnd = Self.find(crlf + crlf, in: collected, from: afterSecond) else { return nil }
        let head = Head(
            metadata: Array(collected[metadataStart..<second]),
            contentType: Self.contentType(collected[afterSecond..<fileHeadersEnd]),
            fileOffset: fileHeadersEnd + 4, closingBytes: partEnd.count + 2)
        return (head, fileHeadersEnd + 4)
    }

    /// Passes on the file's bytes up to the delimiter after them, holding back a tail that could begin it.
    private mutating func readFile(
        _ chunk: UnsafeRawBufferPointer, file: (UnsafeRawBufferPointer) throws(HearthError) -> Void
    ) throws(HearthError) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: pending)
        scratch.append(contentsOf: chunk)
        pending.removeAll(keepingCapacity: true)
        if let end = Self.find(partEnd, in: scratch, from: 0) {
            try Self.pass(scratch, 0..<end, to: file)
            collected = Array(scratch[(end + partEnd.count)...])
            stage = .tail
            try readTail()
            return
        }
        // A delimiter that straddles this chunk and the next starts within its last `partEnd.count - 1` bytes.
        let held = min(scratch.count, partEnd.count - 1)
        let passed = scratch.count - held
        try Self.pass(scratch, 0..<passed, to: file)
        pending.append(contentsOf: scratch[passed...])
    }

    /// Hands `bytes[range]` to `file` (the standard library's `withUnsafeBytes` does not carry a typed throw).
    private static func pass(
        _ bytes: [UInt8], _ range: Range<Int>, to file: (UnsafeRawBufferPointer) throws(HearthError) -> Void
    ) throws(HearthError) {
        guard !range.isEmpty else { return }
        var failure: HearthError?
        bytes.withUnsafeBytes { all in
            do throws(HearthError) { try file(UnsafeRawBufferPointer(rebasing: all[range])) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private mutating func readTail() throws(HearthError) {
        guard collected.count >= 2 else { return }
        guard collected[0] == UInt8(ascii: "-"), collected[1] == UInt8(ascii: "-") else {
            throw .invalidArgument("The multipart body has more than two parts; an upload has metadata and a file.")
        }
        stage = .done
        collected = []
    }

    /// A multipart upload's object: the name (from the metadata part, else `?name=`) and its attributes (the file
    /// part's `Content-Type`, then the metadata's fields).
    static func target(
        _ head: Head, request: HTTPRequest
    ) throws(HearthError) -> (name: String, attributes: ObjectAttributes) {
        var metadata = try StorageAPI.jsonObject(head.metadata)
        let name = metadata["name"]?.stringValue ?? request.queryValue("name") ?? ""
        guard !name.isEmpty else { throw .invalidArgument("The upload's metadata must name the object.") }
        try ObjectName.validate(name)
        metadata["name"] = nil
        var attributes = ObjectAttributes(contentType: head.contentType)
        try attributes.apply(metadata)
        return (name, attributes)
    }

    private static func contentType(_ headers: ArraySlice<UInt8>) -> String? {
        for line in String(decoding: headers, as: UTF8.self).split(separator: "\r\n") {
            let pieces = line.split(separator: ":", maxSplits: 1)
            if pieces.count == 2, pieces[0].lowercased() == "content-type" {
                return String(pieces[1].drop { $0 == " " || $0 == "\t" })
            }
        }
        return nil
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

    /// The first index of `needle` in `haystack` at or after `start`: `memchr` to the next candidate first byte,
    /// then `memcmp` (the file stage runs this over every byte of the upload; glibc keeps `memmem` behind
    /// `_GNU_SOURCE`).
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, start >= 0, haystack.count - start >= needle.count else { return nil }
        return haystack.withUnsafeBytes { hay -> Int? in
            needle.withUnsafeBytes { pattern -> Int? in
                guard let base = hay.baseAddress, let first = pattern.first else { return nil }
                let last = hay.count - pattern.count
                var index = start
                while index <= last {
                    guard let hit = memchr(base + index, Int32(first), last - index + 1) else { return nil }
                    let offset = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + offset, pattern.baseAddress!, pattern.count) == 0 { return offset }
                    index = offset + 1
                }
                return nil
            }
        }
    }
}
