public import HearthCore

extension IndexDefinition {
    /// The entry keys of a document in this index: each field's ``IndexKey`` encoding in index order, bytes
    /// inverted for descending fields (so one ascending byte order serves the declared directions), and one
    /// key per distinct element of the array-contains field. Empty when the document lacks an indexed field.
    public func keys(for documentFields: [String: Value]) -> [[UInt8]] {
        var keys: [[UInt8]] = [[]]
        for field in fields {
            guard let value = documentFields.value(at: field.path) else { return [] }
            switch field.mode {
            case .ascending:
                let encoded = IndexKey.encode(value)
                for index in keys.indices { keys[index] += encoded }
            case .descending:
                let encoded = IndexKey.encode(value).map { ~$0 }
                for index in keys.indices { keys[index] += encoded }
            case .arrayContains:
                guard case .array(let elements) = value else { return [] }
                var distinct: [[UInt8]] = []
                for element in elements {
                    let encoded = IndexKey.encode(element)
                    if !distinct.contains(encoded) { distinct.append(encoded) }
                }
                keys = keys.flatMap { prefix in distinct.map { prefix + $0 } }
            }
        }
        return keys
    }

    /// The tie-breaker of a document's entries: its name in ``IndexKey`` encoding, inverted when `__name__` is
    /// descending, so one ascending scan of the index gives the index's whole order.
    public func nameKey(of path: ResourcePath) -> [UInt8] {
        let key = IndexKey.encode(segments: path.segments)
        return nameDescending ? key.map { ~$0 } : key
    }

    /// The scope value under which a document's entries are filed: its collection's path for a collection-scope
    /// index, its collection ID for a collection-group index.
    public func scope(of path: ResourcePath) -> String {
        scope == .collection ? path.parent.description : path.parent.lastSegment
    }

    /// Whether documents at `path` belong in this index.
    public func covers(_ path: ResourcePath) -> Bool {
        path.isDocument && path.parent.lastSegment == collectionID
    }
}
