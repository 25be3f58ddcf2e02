import HearthCore

/// Turns `setData`/`updateData` arguments into a HearthCore `Write`: values into fields, `FieldValue` sentinels into
/// field transforms or mask-only deletes, exactly as Firestore's clients do.
struct WriteBuilder {
    private var fields: [String: Value] = [:]
    private var transforms: [FieldTransform] = []
    /// Leaf paths written (values and deletes) — the mask of a merge.
    private var leafPaths: [HearthCore.FieldPath] = []
    private let allowDelete: Bool

    private init(allowDelete: Bool) { self.allowDelete = allowDelete }

    /// `setData(_:)`: replaces the whole document.
    static func set(_ path: ResourcePath, _ data: [String: Any]) throws(FirestoreErrorCode) -> Write {
        var builder = WriteBuilder(allowDelete: false)
        try builder.addMap(data, at: [])
        return Write(path: path, operation: .update(fields: builder.fields, mask: nil), transforms: builder.transforms)
    }

    /// `setData(_:merge: true)`: writes only the leaf fields given (maps are merged, not replaced).
    static func merge(_ path: ResourcePath, _ data: [String: Any]) throws(FirestoreErrorCode) -> Write {
        var builder = WriteBuilder(allowDelete: true)
        try builder.addMap(data, at: [])
        return Write(
            path: path, operation: .update(fields: builder.fields, mask: builder.leafPaths),
            transforms: builder.transforms)
    }

    /// `setData(_:mergeFields:)`: writes only the listed fields, taking their values (or absence) from `data`.
    static func merge(
        _ path: ResourcePath, _ data: [String: Any], fields mergeFields: [Any]
    ) throws(FirestoreErrorCode) -> Write {
        var builder = WriteBuilder(allowDelete: true)
        try builder.addMap(data, at: [])
        var mask: [HearthCore.FieldPath] = []
        for field in mergeFields { mask.append(try FieldPath.from(field).core) }
        for path in mask
        where builder.fields.value(at: path) == nil
            && !builder.leafPaths.contains(path) && !builder.transforms.contains(where: { $0.fieldPath == path })
        {
            throw FirestoreErrorCode(
                .invalidArgument, "Field '\(path)' is specified in your field mask but not in your input data.")
        }
        let transforms = builder.transforms.filter { transform in mask.contains { $0.isPrefix(of: transform.fieldPath) }
        }
        let maskWithoutTransforms = mask.filter { path in !transforms.contains { $0.fieldPath == path } }
        return Write(
            path: path, operation: .update(fields: builder.fields, mask: maskWithoutTransforms), transforms: transforms)
    }

    /// `updateData(_:)`: keys are dotted strings or `FieldPath`s; the document must exist.
    static func update(_ path: ResourcePath, _ data: [AnyHashable: Any]) throws(FirestoreErrorCode) -> Write {
        var builder = WriteBuilder(allowDelete: true)
        var mask: [HearthCore.FieldPath] = []
        for (key, value) in data {
            let fieldPath = try FieldPath.from(key.base).core
            try builder.add(value, at: fieldPath.segments, leafOnly: true)
            if let sentinel = value as? FieldValue, case .delete = sentinel.kind {
                mask.append(fieldPath)
            } else if !(value is FieldValue) {
                mask.append(fieldPath)
            }
        }
        guard !data.isEmpty else {
            throw FirestoreErrorCode(.invalidArgument, "updateData needs at least one field.")
        }
        return Write(
            path: path, operation: .update(fields: builder.fields, mask: mask), transforms: builder.transforms,
            precondition: .exists(true))
    }

    private mutating func addMap(_ map: [String: Any], at prefix: [String]) throws(FirestoreErrorCode) {
        if map.isEmpty && !prefix.isEmpty {
            fields.setValue(.map([:]), at: HearthCore.FieldPath(segments: prefix))
            leafPaths.append(HearthCore.FieldPath(segments: prefix))
        }
        for (key, value) in map {
            guard !key.isEmpty else { throw FirestoreErrorCode(.invalidArgument, "Field names must not be empty.") }
            try add(value, at: prefix + [key], leafOnly: false)
        }
    }

    private mutating func add(_ any: Any, at segments: [String], leafOnly: Bool) throws(FirestoreErrorCode) {
        let path = HearthCore.FieldPath(segments: segments)
        if let sentinel = any as? FieldValue {
            switch sentinel.kind {
            case .delete:
                guard allowDelete else {
                    throw FirestoreErrorCode(
                        .invalidArgument,
                        "FieldValue.delete() can only be used with updateData() and setData() with merge.")
                }
                leafPaths.append(path)
            case .serverTimestamp: transforms.append(FieldTransform(fieldPath: path, kind: .serverTimestamp))
            case .increment(let value): transforms.append(FieldTransform(fieldPath: path, kind: .increment(value)))
            case .arrayUnion(let elements):
                transforms.append(FieldTransform(fieldPath: path, kind: .appendMissingElements(try elements.get())))
            case .arrayRemove(let elements):
                transforms.append(FieldTransform(fieldPath: path, kind: .removeAllFromArray(try elements.get())))
            }
            return
        }
        if !leafOnly, let map = any as? [String: Any] {
            try addMap(map, at: segments)
            return
        }
        if leafOnly, let map = any as? [String: Any], containsSentinel(map) {
            // updateData(["a": ["b": FieldValue.increment(1)]]) replaces `a` but still applies the transform.
            var nested = WriteBuilder(allowDelete: false)
            try nested.addMap(map, at: segments)
            fields.setValue(nested.fields.value(at: path) ?? .map([:]), at: path)
            transforms += nested.transforms
            leafPaths.append(path)
            return
        }
        fields.setValue(try UserData.value(any), at: path)
        leafPaths.append(path)
    }

    private func containsSentinel(_ map: [String: Any]) -> Bool {
        map.values.contains { value in
            value is FieldValue || (value as? [String: Any]).map(containsSentinel) == true
        }
    }
}
