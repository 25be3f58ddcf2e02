package import HearthCore

/// How every engine stores a tree change's updates in its change log: the export-format JSON of a PUT's value, or
/// for a PATCH an object from relative path to value.
package enum TreeChangeData {
    /// The stored bytes of `updates`.
    package static func encode(_ kind: TreeChange.Kind, _ updates: [TreeChange.Update]) -> [UInt8] {
        switch kind {
        case .put:
            return TreeNode.json(updates.first?.node, .export).serialized()
        case .patch:
            var members: [String: JSONValue] = [:]
            for update in updates { members[update.path.description] = TreeNode.json(update.node, .export) }
            return JSONValue.object(members).serialized()
        }
    }

    /// A path as a change log stores it (`TreePath.description`, unvalidated: the engine wrote it).
    package static func storedPath(_ text: String) -> TreePath {
        TreePath(segments: text.split(separator: "/").map(String.init))
    }

    /// The updates stored as `bytes`.
    package static func decode(_ kind: TreeChange.Kind, _ bytes: [UInt8]) throws -> [TreeChange.Update] {
        let json = try JSONParser.parse(bytes)
        switch kind {
        case .put:
            return [TreeChange.Update(path: .root, node: try TreeWriteValue(json: json, at: .root).node)]
        case .patch:
            // The writer applies (and publishes) a PATCH's updates in path order; read them back the same way.
            return try (json.objectValue ?? [:]).map { entry in
                let path = storedPath(entry.key)
                return TreeChange.Update(path: path, node: try TreeWriteValue(json: entry.value, at: path).node)
            }.sorted { $0.path < $1.path }
        }
    }
}
