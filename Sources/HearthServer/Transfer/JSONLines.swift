import Foundation
import HearthCore

/// Writes a JSON-lines file (one JSON value per line, `\n` after each) through a buffer, so a million documents are a
/// few hundred `write(2)` calls.
final class JSONLinesWriter {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    let path: String
    /// Lines written so far.
    private(set) var lines = 0

    /// Creates `path` (which must not exist) and opens it for writing.
    init(creating path: String) throws(HearthError) {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw .internal("Cannot create \(path).")
        }
        do {
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        } catch {
            throw .internal("Cannot open \(path): \(error.localizedDescription)")
        }
        buffer.reserveCapacity(1 << 20)
    }

    /// Appends one line: `write` appends its JSON text to the buffer it is given.
    func line(_ write: (inout [UInt8]) -> Void) throws(HearthError) {
        write(&buffer)
        buffer.append(UInt8(ascii: "\n"))
        lines += 1
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Writes what is buffered, syncs the file and closes it.
    func close() throws(HearthError) {
        try flush()
        do {
            try handle.synchronize()
            try handle.close()
        } catch {
            throw .internal("Cannot write \(path): \(error.localizedDescription)")
        }
    }

    private func flush() throws(HearthError) {
        guard !buffer.isEmpty else { return }
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            throw .internal("Cannot write \(path): \(error.localizedDescription)")
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Reads a JSON-lines file one parsed line at a time, in chunks, so a file of any size takes constant memory. Blank
/// lines are skipped; a line that is not JSON fails with its file and line number.
struct JSONLinesReader {
    /// The longest line accepted (a document is at most 1 MiB of fields; its JSON text somewhat more).
    static let maxLineBytes = 16 << 20

    /// Calls `body` with each line's value and its 1-based line number; a file that does not exist has no lines.
    static func forEachLine(
        of path: String, _ body: (JSONValue, Int) throws(HearthError) -> Void
    ) throws(HearthError) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw .invalidArgument("Cannot read \(path): \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        var pending: [UInt8] = []
        var number = 0
        func emit(_ bytes: ArraySlice<UInt8>) throws(HearthError) {
            number += 1
            guard bytes.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }) else { return }
            let value: JSONValue
            do {
                value = try JSONParser.parse(Array(bytes))
            } catch {
                throw .invalidArgument("\(path):\(number): not JSON (\(error.reason)).")
            }
            try body(value, number)
        }
        while true {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 1 << 20)
            } catch {
                throw .invalidArgument("Cannot read \(path): \(error.localizedDescription)")
            }
            guard let chunk, !chunk.isEmpty else { break }
            pending.append(contentsOf: chunk)
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                try emit(pending[start..<newline])
                start = newline + 1
            }
            pending.removeSubrange(..<start)
            guard pending.count <= maxLineBytes else {
                throw .invalidArgument("\(path):\(number + 1): a line longer than \(maxLineBytes) bytes.")
            }
        }
        if !pending.isEmpty { try emit(pending[...]) }
    }
}
