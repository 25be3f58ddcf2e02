/// A slash-separated path of collection and document IDs below a database's `documents` root.
///
/// An even number of segments names a document (`users/alice`); an odd number names a collection
/// (`users/alice/posts`). The empty path is the root, the parent of top-level collections.
public struct ResourcePath: Sendable, Hashable, CustomStringConvertible {
    /// The IDs, in order.
    public let segments: [String]

    /// The longest encoded path Firestore accepts, in bytes.
    public static let maxBytes = 6 * 1024
    /// The longest single ID Firestore accepts, in bytes.
    public static let maxSegmentBytes = 1500

    /// A path from already-validated segments.
    public init(segments: [String]) {
        self.segments = segments
    }

    /// The root path (no segments).
    public static let root = ResourcePath(segments: [])

    /// Parses and validates a relative path such as `users/alice/posts`.
    /// - Throws: `INVALID_ARGUMENT` naming the offending segment.
    public init(validating path: String) throws(HearthError) {
        if path.isEmpty {
            self.init(segments: [])
            return
        }
        guard path.utf8.count <= Self.maxBytes else {
            throw .invalidArgument("Resource path is longer than \(Self.maxBytes) bytes.")
        }
        // Split on the byte: `/` is never part of a multi-byte character, and a commit names hundreds of documents.
        var text = path
        let segments = text.withUTF8 { bytes in
            var segments: [String] = []
            var start = 0
            for index in 0..<bytes.count where bytes[index] == UInt8(ascii: "/") {
                segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                start = index + 1
            }
            segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
            return segments
        }
        try self.init(validatingSegments: segments)
    }

    /// Validates already-split IDs (as a URL router has them).
    /// - Throws: `INVALID_ARGUMENT` naming the offending segment.
    public init(validatingSegments segments: [String]) throws(HearthError) {
        var bytes = max(segments.count - 1, 0)
        for segment in segments { bytes += segment.utf8.count }
        guard bytes <= Self.maxBytes else {
            throw .invalidArgument("Resource path is longer than \(Self.maxBytes) bytes.")
        }
        for segment in segments {
            try Self.validate(id: segment, in: segments.count == 1 ? segment : segments.joined(separator: "/"))
        }
        self.init(segments: segments)
    }

    /// Checks one collection or document ID against Firestore's rules.
    public static func validate(id: String, in path: @autoclosure () -> String) throws(HearthError) {
        let utf8 = id.utf8
        // The common case, a plain ID, passes on one pass over its bytes.
        if utf8.count >= 1, utf8.count <= maxSegmentBytes, !utf8.contains(UInt8(ascii: "/")),
            !(utf8.count <= 2 && utf8.allSatisfy { $0 == UInt8(ascii: ".") }),
            !(utf8.count >= 4 && utf8.starts(with: [0x5F, 0x5F]) && utf8.reversed().starts(with: [0x5F, 0x5F]))
        {
            return
        }
        let path = path()
        if id.isEmpty {
            throw .invalidArgument("Path \"\(path)\" has an empty segment; IDs cannot be empty.")
        }
        if utf8.contains(UInt8(ascii: "/")) {
            throw .invalidArgument("ID \"\(id.prefix(64))\" contains \"/\"; IDs cannot contain slashes.")
        }
        if id == "." || id == ".." {
            throw .invalidArgument("Path \"\(path)\" has an ID \"\(id)\"; IDs cannot be \".\" or \"..\".")
        }
        if id.utf8.count > maxSegmentBytes {
            throw .invalidArgument("Path \"\(path.prefix(64))…\" has an ID longer than \(maxSegmentBytes) bytes.")
        }
        if id.hasPrefix("__") && id.hasSuffix("__") && id.utf8.count >= 4 {
            throw .invalidArgument("ID \"\(id)\" is reserved: IDs matching __.*__ cannot be used.")
        }
    }

    /// Whether this path names a document (an even, non-zero number of segments).
    public var isDocument: Bool { !segments.isEmpty && segments.count % 2 == 0 }
    /// Whether this path names a collection (an odd number of segments).
    public var isCollection: Bool { segments.count % 2 == 1 }
    /// The last segment: a document's or a collection's ID.
    public var lastSegment: String { segments.last ?? "" }
    /// The path without its last segment.
    public var parent: ResourcePath { ResourcePath(segments: Array(segments.dropLast())) }
    /// This path with one more segment.
    public func appending(_ segment: String) -> ResourcePath { ResourcePath(segments: segments + [segment]) }
    /// Whether `other` is this path or lies below it.
    public func isPrefix(of other: ResourcePath) -> Bool {
        other.segments.count >= segments.count && Array(other.segments.prefix(segments.count)) == segments
    }

    /// The path as `a/b/c`.
    public var description: String { segments.joined(separator: "/") }
}

/// The database a request names: `projects/{project}/databases/{database}`.
public struct DatabaseName: Sendable, Hashable, CustomStringConvertible {
    /// The project ID.
    public var project: String
    /// The database ID, `(default)` unless named.
    public var database: String

    /// The ID of every project's default database.
    public static let defaultDatabase = "(default)"

    /// Creates a database name.
    public init(project: String, database: String = DatabaseName.defaultDatabase) {
        self.project = project
        self.database = database
    }

    /// `projects/{project}/databases/{database}/documents`, the prefix of every document name.
    public var documentsRoot: String { "projects/\(project)/databases/\(database)/documents" }

    /// The full resource name of a document path.
    public func name(of path: ResourcePath) -> String {
        path.segments.isEmpty ? documentsRoot : documentsRoot + "/" + path.description
    }

    /// Appends `name(of:)` as a quoted JSON string without building it first: responses name every document.
    public func appendJSONName(of path: ResourcePath, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        JSONWriter.appendASCII("projects/", into: &buffer)
        JSONWriter.appendStringContents(project, into: &buffer)
        JSONWriter.appendASCII("/databases/", into: &buffer)
        JSONWriter.appendStringContents(database, into: &buffer)
        JSONWriter.appendASCII("/documents", into: &buffer)
        for segment in path.segments {
            buffer.append(UInt8(ascii: "/"))
            JSONWriter.appendStringContents(segment, into: &buffer)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Parses a full name (`projects/p/databases/(default)/documents/users/alice`) into a path below this database.
    /// - Throws: `INVALID_ARGUMENT` when the name belongs to another database or is malformed.
    public func path(fromName name: String) throws(HearthError) -> ResourcePath {
        // Compared as bytes, piece by piece, without building the root: every write of a commit names its document.
        var text = name
        let match = text.withUTF8 { bytes -> String?? in
            var offset = 0
            func take(_ piece: some Sequence<UInt8>) -> Bool {
                for byte in piece {
                    guard offset < bytes.count, bytes[offset] == byte else { return false }
                    offset += 1
                }
                return true
            }
            guard take("projects/".utf8), take(project.utf8), take("/databases/".utf8), take(database.utf8),
                take("/documents".utf8)
            else { return nil }
            if offset == bytes.count { return .some(nil) }
            guard bytes[offset] == UInt8(ascii: "/") else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[(offset + 1)...]), as: UTF8.self)
        }
        guard let match else {
            let root = documentsRoot
            throw .invalidArgument(
                "Document name \"\(name.prefix(200))\" is not under \"\(root)\"; names have the form \(root)/{collection}/{document}."
            )
        }
        // `.some(nil)`: the name is the documents root itself.
        guard let relative = match else { return .root }
        return try ResourcePath(validating: relative)
    }

    /// `projects/{project}/databases/{database}`.
    public var description: String { "projects/\(project)/databases/\(database)" }
}
