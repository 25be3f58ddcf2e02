import HearthCore

/// A parsed Firestore REST URL: `/v1/projects/{p}/databases/{d}/documents[/{path}][:{verb}]`.
struct DocumentsRoute: Sendable, Equatable {
    /// The custom methods Firestore defines on documents; any other `:suffix` belongs to a document ID.
    static let verbs: Set<String> = [
        "commit", "batchGet", "batchWrite", "beginTransaction", "rollback", "runQuery", "runAggregationQuery",
        "listCollectionIds", "listDocuments", "partitionQuery", "listen", "write",
    ]

    var database: DatabaseName
    var path: ResourcePath
    var verb: String?

    /// Parses the URL path; `nil` when it is not a documents URL at all.
    ///
    /// Every request to the server is offered here, so the path is read as bytes: `/` and `:` are ASCII and never
    /// part of a multi-byte character, and only the pieces kept become strings.
    /// - Throws: `INVALID_ARGUMENT` for a documents URL with an invalid resource path.
    static func parse(_ urlPath: String) throws(HearthError) -> DocumentsRoute? {
        var text = urlPath
        let result = text.withUTF8 { bytes in Result { () throws(HearthError) in try parse(utf8: bytes) } }
        return try result.get()
    }

    private static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) throws(HearthError) -> DocumentsRoute? {
        guard bytes.count >= 13, matches(UnsafeBufferPointer(rebasing: bytes[0..<13]), "/v1/projects/") else {
            return nil
        }
        // The pieces between slashes after `/v1/`: projects, {p}, databases, {d}, documents, then the path.
        var parts: [Range<Int>] = []
        parts.reserveCapacity(8)
        var start = 4
        for index in 4..<bytes.count where bytes[index] == UInt8(ascii: "/") {
            parts.append(start..<index)
            start = index + 1
        }
        parts.append(start..<bytes.count)
        func piece(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[range]) }
        func string(_ range: Range<Int>) -> String { String(decoding: piece(range), as: UTF8.self) }
        guard parts.count >= 5, matches(piece(parts[2]), "databases") else { return nil }
        var verb: String?
        let last = parts[parts.count - 1]
        if let colon = piece(last).lastIndex(of: UInt8(ascii: ":")) {
            let candidate = string((last.lowerBound + colon + 1)..<last.upperBound)
            if verbs.contains(candidate) {
                verb = candidate
                parts[parts.count - 1] = last.lowerBound..<(last.lowerBound + colon)
            }
        }
        guard matches(piece(parts[4]), "documents"), !parts[1].isEmpty, !parts[3].isEmpty else { return nil }
        let database = DatabaseName(project: string(parts[1]), database: string(parts[3]))
        let path = try ResourcePath(validatingSegments: parts[5...].map(string))
        return DocumentsRoute(database: database, path: path, verb: verb)
    }
}

/// Whether `bytes` are exactly `literal`'s. Every request's path passes here; the generic `elementsEqual` over a
/// string's UTF-8 view cost several times this loop.
private func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
    guard bytes.count == literal.utf8CodeUnitCount else { return false }
    let expected = literal.utf8Start
    for index in 0..<bytes.count where bytes[index] != expected[index] { return false }
    return true
}
