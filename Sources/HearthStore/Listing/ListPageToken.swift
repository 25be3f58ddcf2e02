package import HearthCore

/// Opaque `documents.list` page tokens: a cursor just after the last document of a page — its values for each of
/// the listing's normalized orderings, `__name__` last — bound to those orderings, so a token is refused with any
/// other `orderBy`, and to the collection, whose documents the `__name__` value must name.
///
/// Form: `c.` + base64url of the orderings' text + `.` + base64url of the values as a Firestore `fields` object
/// keyed `"0"`, `"1"`, … (an array value could not hold array values).
package enum ListPageToken {
    /// The token for the position after a document with `values` (one per ordering).
    package static func encode(values: [Value], orders: [QueryOrder]) -> String {
        var fields: [String: Value] = [:]
        for (index, value) in values.enumerated() { fields[String(index)] = value }
        return "c." + Base64URL.encode(Array(signature(orders).utf8)) + "."
            + Base64URL.encode(Value.encodeFields(fields))
    }

    /// The cursor values of a token, and the document its `__name__` value names.
    package static func decode(
        _ token: String, orders: [QueryOrder], collection: ResourcePath, database: DatabaseName
    ) throws(HearthError) -> (values: [Value], path: ResourcePath) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "c", let signature = Base64URL.decode(parts[1]),
            String(decoding: signature, as: UTF8.self) == Self.signature(orders),
            let encoded = Base64URL.decode(parts[2]),
            let json = try? JSONParser.parse(encoded), let fields = try? Value.decodeFields(json, at: "")
        else { throw invalid }
        var values: [Value] = []
        for index in orders.indices {
            guard let value = fields[String(index)] else { throw invalid }
            values.append(value)
        }
        guard fields.count == orders.count, case .reference(let name)? = values.last,
            let path = try? database.path(fromName: name), path.isDocument, path.parent == collection
        else { throw invalid }
        return (values, path)
    }

    /// The orderings as text (`priority desc,due,__name__`), so a token names the order it continues.
    private static func signature(_ orders: [QueryOrder]) -> String {
        orders.map { $0.descending ? "\($0.field) desc" : $0.field.description }.joined(separator: ",")
    }

    private static let invalid = HearthError.invalidArgument(
        "Invalid pageToken: pass the nextPageToken of the previous page unchanged, with the same collection and orderBy."
    )
}
