import HearthCore
import HearthStore
import HearthStoreSQLite

/// The lines of an export's `documents.jsonl` and `tree.jsonl` (docs/export.md): written with a fixed member order
/// and sorted field names, so the same data always makes the same bytes and a diff shows only what changed.
enum ExportLines {
    /// `{"name":…,"createTime":…,"updateTime":…,"fields":{…}}`: the path below the database's documents, the
    /// times in RFC 3339 to the microsecond, the fields in Firestore's REST JSON (every value type keeps its kind).
    ///
    /// The fields are copied as stored: the store keeps them in this very encoding (`Value.encodeFields`: members
    /// sorted by their UTF-8 bytes at every level), so parsing and writing them again would only cost time.
    static func document(_ document: StoredDocument, into buffer: inout [UInt8]) {
        JSONWriter.appendASCII(#"{"name":"#, into: &buffer)
        JSONWriter.appendString(document.path.description, into: &buffer)
        JSONWriter.appendASCII(#","createTime":""#, into: &buffer)
        document.createTime.appendRFC3339(to: &buffer)
        JSONWriter.appendASCII(#"","updateTime":""#, into: &buffer)
        document.updateTime.appendRFC3339(to: &buffer)
        JSONWriter.appendASCII(#"","fields":"#, into: &buffer)
        buffer.append(contentsOf: document.fieldsJSON)
        buffer.append(UInt8(ascii: "}"))
    }

    /// The document a `documents.jsonl` line describes, checked as a write would be.
    /// - Throws: `INVALID_ARGUMENT` naming `file:line` and what is wrong.
    static func document(_ line: JSONValue, at location: String) throws(HearthError) -> DocumentSnapshot {
        guard case .string(let name)? = line["name"] else { throw .invalidArgument("\(location): no \"name\".") }
        let path: ResourcePath
        do {
            path = try ResourcePath(validating: name)
        } catch {
            throw .invalidArgument("\(location): \(error.message)")
        }
        guard path.isDocument else { throw .invalidArgument("\(location): \(name) is not a document path.") }
        func time(_ key: String) throws(HearthError) -> Timestamp {
            guard case .string(let text)? = line[key], let time = Timestamp(rfc3339: text) else {
                throw .invalidArgument("\(location): \"\(key)\" must be an RFC 3339 time.")
            }
            return time
        }
        let createTime = try time("createTime")
        let updateTime = try time("updateTime")
        guard createTime <= updateTime else {
            throw .invalidArgument("\(location): the createTime is after the updateTime.")
        }
        let fields = try Value.decodeFields(line["fields"] ?? .object([:]), at: "\(location): fields")
        return DocumentSnapshot(path: path, fields: fields, createTime: createTime, updateTime: updateTime)
    }

    /// `{"namespace":…,"path":"/a/b","value":…}` for a leaf, `"priority"` instead of `"value"` for a node's
    /// priority. A whole double keeps its `.0`, so it comes back a double.
    static func treeRow(namespace: String, segments: [String], leaf: TreeLeaf, into buffer: inout [UInt8]) {
        let isPriority = segments.last == StoreTransfer.priorityKey
        let node = isPriority ? segments.dropLast() : segments[...]
        JSONWriter.appendASCII(#"{"namespace":"#, into: &buffer)
        JSONWriter.appendString(namespace, into: &buffer)
        JSONWriter.appendASCII(#","path":"#, into: &buffer)
        JSONWriter.appendString("/" + node.joined(separator: "/"), into: &buffer)
        if isPriority {
            JSONWriter.appendASCII(#","priority":"#, into: &buffer)
        } else {
            JSONWriter.appendASCII(#","value":"#, into: &buffer)
        }
        if case .double(let number) = leaf, number.isFinite, number.magnitude < 1e16, Double(Int64(number)) == number {
            if number == 0, number.sign == .minus { buffer.append(UInt8(ascii: "-")) }
            JSONWriter.appendInteger(Int64(number), into: &buffer)
            JSONWriter.appendASCII(".0", into: &buffer)
        } else {
            JSONWriter.write(leaf.json, into: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// The namespace, location keys (ending in `.priority` for a priority) and leaf of a `tree.jsonl` line.
    /// - Throws: `INVALID_ARGUMENT` naming `file:line` and what is wrong.
    static func treeRow(
        _ line: JSONValue, at location: String
    ) throws(HearthError) -> (namespace: String, segments: [String], leaf: TreeLeaf) {
        guard case .string(let namespace)? = line["namespace"], !namespace.isEmpty else {
            throw .invalidArgument("\(location): no \"namespace\".")
        }
        guard case .string(let text)? = line["path"], text.hasPrefix("/") else {
            throw .invalidArgument("\(location): \"path\" must start with /.")
        }
        let segments: [String]
        do {
            segments = try TreePath(validating: text).segments
        } catch {
            throw .invalidArgument("\(location): \(error.message)")
        }
        if let priority = line["priority"] {
            guard let leaf = TreeLeaf(json: priority), leaf != .bool(true), leaf != .bool(false) else {
                throw .invalidArgument("\(location): a priority must be a number or a string.")
            }
            return (namespace, segments + [StoreTransfer.priorityKey], leaf)
        }
        guard let value = line["value"], let leaf = TreeLeaf(json: value) else {
            throw .invalidArgument("\(location): \"value\" must be a string, a number or a boolean.")
        }
        return (namespace, segments, leaf)
    }
}
