public import HearthCore

/// A declared composite index, in the shape of an entry of Firebase's `firestore.indexes.json`:
/// `{"collectionGroup":"todos","queryScope":"COLLECTION","fields":[{"fieldPath":"owner","order":"ASCENDING"},
/// {"fieldPath":"date","order":"DESCENDING"}]}`.
public struct IndexDefinition: Sendable, Hashable, CustomStringConvertible {
    /// Whether the index serves queries on one collection or on every collection with the ID.
    public enum Scope: String, Sendable, Hashable {
        /// `COLLECTION`.
        case collection = "COLLECTION"
        /// `COLLECTION_GROUP`.
        case collectionGroup = "COLLECTION_GROUP"
    }

    /// How a field is indexed.
    public enum Mode: String, Sendable, Hashable {
        /// `"order": "ASCENDING"`.
        case ascending = "ASCENDING"
        /// `"order": "DESCENDING"`.
        case descending = "DESCENDING"
        /// `"arrayConfig": "CONTAINS"`: one entry per array element.
        case arrayContains = "CONTAINS"
    }

    /// One indexed field.
    public struct Field: Sendable, Hashable {
        /// The field.
        public var path: FieldPath
        /// How it is indexed.
        public var mode: Mode

        /// Creates a field.
        public init(path: FieldPath, mode: Mode) {
            self.path = path
            self.mode = mode
        }
    }

    /// The collection ID the index covers.
    public var collectionID: String
    /// The query scope.
    public var scope: Scope
    /// The fields, in index order (`__name__` follows them).
    public var fields: [Field]
    /// The direction of the trailing `__name__`: by default the last field's, as in Firestore; an explicit
    /// `{"fieldPath": "__name__", "order": …}` at the end sets it.
    public var nameDescending: Bool

    /// Creates a definition; `nameDescending` defaults to the last field's direction.
    public init(collectionID: String, scope: Scope, fields: [Field], nameDescending: Bool? = nil) {
        self.collectionID = collectionID
        self.scope = scope
        self.fields = fields
        self.nameDescending = nameDescending ?? (fields.last?.mode == .descending)
    }

    /// Decodes one entry of the `indexes` list.
    /// - Throws: `INVALID_ARGUMENT` naming what is wrong.
    public init(firestoreJSON json: JSONValue, at location: String) throws(HearthError) {
        let reader = try JSONObjectReader(
            json, at: location, allowed: ["collectionGroup", "queryScope", "fields", "density", "apiScope"])
        guard let collection = try reader.string("collectionGroup"), !collection.isEmpty, !collection.contains("/")
        else {
            throw .invalidArgument("\(location): collectionGroup must be a collection ID such as \"todos\".")
        }
        let scopeText = try reader.string("queryScope") ?? "COLLECTION"
        guard let scope = Scope(rawValue: scopeText) else {
            throw .invalidArgument("\(location): queryScope must be COLLECTION or COLLECTION_GROUP, not \(scopeText).")
        }
        var fields: [Field] = []
        var explicitNameDescending: Bool?
        for (index, item) in (try reader.array("fields") ?? []).enumerated() {
            let fieldReader = try JSONObjectReader(
                item, at: "\(location).fields[\(index)]", allowed: ["fieldPath", "order", "arrayConfig"])
            guard let pathText = try fieldReader.string("fieldPath") else {
                throw .invalidArgument("\(fieldReader.location): fieldPath is required.")
            }
            let path = try FieldPath(parsing: pathText)
            let mode: Mode
            switch (try fieldReader.string("order"), try fieldReader.string("arrayConfig")) {
            case ("ASCENDING"?, nil): mode = .ascending
            case ("DESCENDING"?, nil): mode = .descending
            case (nil, "CONTAINS"?): mode = .arrayContains
            default:
                throw .invalidArgument(
                    "\(fieldReader.location): give \"order\": ASCENDING|DESCENDING or \"arrayConfig\": CONTAINS.")
            }
            if path == .documentName {
                // `__name__` is implicit at the end; an explicit trailing one only restates its direction.
                guard index == (try reader.array("fields") ?? []).count - 1, mode != .arrayContains else {
                    throw .invalidArgument("\(fieldReader.location): __name__ may only be the last field.")
                }
                explicitNameDescending = mode == .descending
                continue
            }
            guard !fields.contains(where: { $0.path == path }) else {
                throw .invalidArgument("\(fieldReader.location): field \(path) appears twice.")
            }
            fields.append(Field(path: path, mode: mode))
        }
        guard !fields.isEmpty else { throw .invalidArgument("\(location): an index needs at least one field.") }
        guard fields.filter({ $0.mode == .arrayContains }).count <= 1 else {
            throw .invalidArgument("\(location): an index may have at most one arrayConfig field.")
        }
        self.init(collectionID: collection, scope: scope, fields: fields, nameDescending: explicitNameDescending)
    }

    /// Reads a `hearth.indexes.json` / `firestore.indexes.json` document: `{"indexes": [ … ], "fieldOverrides": [ … ]}`.
    public static func parseFile(_ bytes: [UInt8]) throws(HearthError) -> [IndexDefinition] {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw .invalidArgument("The index file is not valid JSON: \(error)")
        }
        let reader = try JSONObjectReader(json, at: "", allowed: ["indexes", "fieldOverrides"])
        var definitions: [IndexDefinition] = []
        for (index, item) in (try reader.array("indexes") ?? []).enumerated() {
            let definition = try IndexDefinition(firestoreJSON: item, at: "indexes[\(index)]")
            if !definitions.contains(definition) { definitions.append(definition) }
        }
        return definitions
    }

    /// The canonical JSON of the definition, as a `firestore.indexes.json` entry (also the error hint format).
    public var description: String {
        let fieldsJSON = fields.map { field -> String in
            let path = JSONValue.string(field.path.description).jsonString
            switch field.mode {
            case .arrayContains: return "{\"fieldPath\":\(path),\"arrayConfig\":\"CONTAINS\"}"
            default: return "{\"fieldPath\":\(path),\"order\":\"\(field.mode.rawValue)\"}"
            }
        }
        var all = fieldsJSON
        if nameDescending != (fields.last?.mode == .descending) {
            all.append("{\"fieldPath\":\"__name__\",\"order\":\"\(nameDescending ? "DESCENDING" : "ASCENDING")\"}")
        }
        return
            "{\"collectionGroup\":\(JSONValue.string(collectionID).jsonString),\"queryScope\":\"\(scope.rawValue)\",\"fields\":[\(all.joined(separator: ","))]}"
    }
}

/// A declared index and whether it can serve queries yet.
public struct IndexStatus: Sendable, Equatable {
    /// The definition.
    public var definition: IndexDefinition
    /// `true` once existing documents are indexed.
    public var ready: Bool
    /// While building: the documents the build has indexed so far.
    public var completedDocuments: Int64
    /// While building: how many documents the build found to index when it started (documents written since are
    /// indexed by their commits); `nil` until its first step has run.
    public var estimatedDocuments: Int64?

    /// Creates a status.
    public init(
        definition: IndexDefinition, ready: Bool, completedDocuments: Int64 = 0, estimatedDocuments: Int64? = nil
    ) {
        self.definition = definition
        self.ready = ready
        self.completedDocuments = completedDocuments
        self.estimatedDocuments = estimatedDocuments
    }
}
