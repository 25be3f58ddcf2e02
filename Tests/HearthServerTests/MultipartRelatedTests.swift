import HearthCore
import Testing

@testable import HearthServer

/// The streaming `multipart/related` reader: whatever the chunking, the file comes out byte for byte, the head is
/// read once, and malformed bodies are refused with the reason.
@Suite("Multipart reader")
struct MultipartRelatedTests {
    /// What one read of a whole body gave.
    struct Outcome {
        var heads: [MultipartRelated.Head] = []
        var file: [UInt8] = []
        var error: HearthError?
    }

    static func body(file: [UInt8], boundary: String = "xYz", epilogue: String = "") -> [UInt8] {
        Array("preamble\r\n--\(boundary)\r\nContent-Type: application/json\r\n\r\n{\"name\":\"a/b\"}\r\n".utf8)
            + Array("--\(boundary)\r\nContent-Type: image/png\r\n\r\n".utf8) + file
            + Array("\r\n--\(boundary)--\(epilogue)".utf8)
    }

    /// Reads `body` in chunks of the sizes `sizes` gives in turn, then finishes.
    static func read(_ body: [UInt8], boundary: String = "xYz", sizes: [Int]) -> Outcome {
        var outcome = Outcome()
        do throws(HearthError) {
            var reader = try MultipartRelated(contentType: "multipart/related; boundary=\"\(boundary)\"")
            var offset = 0
            var turn = 0
            while offset < body.count {
                let size = min(sizes[turn % sizes.count], body.count - offset)
                turn += 1
                let chunk = Array(body[offset..<(offset + size)])
                offset += size
                var failure: HearthError?
                chunk.withUnsafeBytes { bytes in
                    do throws(HearthError) {
                        try reader.read(
                            bytes, head: { outcome.heads.append($0) }, file: { outcome.file.append(contentsOf: $0) })
                    } catch { failure = error }
                }
                if let failure { throw failure }
            }
            try reader.finish()
        } catch {
            outcome.error = error
        }
        return outcome
    }

    /// A file full of near-delimiters: CRLFs, `--`, and the boundary's own prefix.
    static let tricky: [UInt8] = {
        var bytes: [UInt8] = []
        for index in 0..<5000 {
            bytes.append(contentsOf: Array("\r\n--xY".utf8))
            // Never `z`: the boundary itself cannot occur in a part, by the definition of a boundary.
            bytes.append(UInt8(truncatingIfNeeded: index) & 0x3F)
            bytes.append(contentsOf: Array("\r\n-\r".utf8))
        }
        return bytes
    }()

    @Test(arguments: [[1], [2, 3], [7], [13, 1, 64], [4096], [100_000]])
    func everyChunkingGivesTheSameFile(_ sizes: [Int]) {
        let outcome = Self.read(Self.body(file: Self.tricky), sizes: sizes)
        #expect(outcome.error == nil)
        #expect(outcome.heads.count == 1)
        #expect(outcome.heads.first?.contentType == "image/png")
        #expect(outcome.heads.first.map { String(decoding: $0.metadata, as: UTF8.self) } == #"{"name":"a/b"}"#)
        #expect(outcome.file.count == Self.tricky.count)
        #expect(outcome.file == Self.tricky, "the file's bytes differ")
    }

    @Test func theSizeThePlanImpliesIsTheFileSize() {
        let file = Array(repeating: UInt8(7), count: 999)
        let body = Self.body(file: file)
        let head = Self.read(body, sizes: [50]).heads.first
        #expect(head.map { body.count - $0.fileOffset - $0.closingBytes } == 999)
    }

    @Test func anEpilogueAndAnEmptyFileAreAccepted() {
        let outcome = Self.read(Self.body(file: [], epilogue: "\r\nanything"), sizes: [5])
        #expect(outcome.error == nil)
        #expect(outcome.file.isEmpty)
    }

    @Test func malformedBodiesAreRefusedWithTheReason() {
        func message(_ body: [UInt8]) -> String? { Self.read(body, sizes: [17]).error?.message }
        let good = Self.body(file: Array("abc".utf8))
        #expect(message(Array(good.dropLast(3)))?.contains("before its closing delimiter") == true)
        let onePart = Array("--xYz\r\n\r\n{\"name\":\"a\"}\r\n--xYz--".utf8)
        #expect(message(onePart)?.contains("a metadata part and a file part") == true)
        let threeParts = Array(good.dropLast(2)) + Array("\r\n\r\nmore\r\n--xYz--".utf8)
        #expect(message(threeParts)?.contains("more than two parts") == true)
        let hugeHead =
            Array("--xYz\r\n\r\n".utf8) + Array(repeating: UInt8(ascii: "m"), count: MultipartRelated.maxHeadBytes)
        #expect(message(hugeHead)?.contains("larger than") == true)
        #expect(throws: HearthError.self) { try MultipartRelated(contentType: "multipart/related") }
        #expect(throws: HearthError.self) { try MultipartRelated(contentType: "application/json; boundary=a") }
    }
}
