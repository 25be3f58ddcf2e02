import HearthCore
import HearthStore

/// Encodes stored documents as Firestore REST `Document` JSON without decoding their fields when no mask
/// applies: the stored `fields` JSON is spliced in as is.
enum DocumentJSON {
    static func append(
        _ document: StoredDocument, database: DatabaseName, mask: [FieldPath]?, to buffer: inout [UInt8]
    ) throws(HearthError) {
        buffer.append(contentsOf: #"{"name":"#.utf8)
        database.appendJSONName(of: document.path, to: &buffer)
        if let mask {
            let fields = try document.fields()
            var projected: [String: Value] = [:]
            for path in mask {
                if let value = fields.value(at: path) { projected.setValue(value, at: path) }
            }
            if !projected.isEmpty {
                buffer.append(contentsOf: #","fields":"#.utf8)
                Value.appendFields(projected, to: &buffer)
            }
        } else if !document.fieldsJSON.elementsEqual("{}".utf8) {
            buffer.append(contentsOf: #","fields":"#.utf8)
            buffer.append(contentsOf: document.fieldsJSON)
        }
        buffer.append(contentsOf: #","createTime":""#.utf8)
        document.createTime.appendRFC3339(to: &buffer)
        buffer.append(contentsOf: #"","updateTime":""#.utf8)
        document.updateTime.appendRFC3339(to: &buffer)
        buffer.append(contentsOf: #""}"#.utf8)
    }

    static func encode(
        _ document: StoredDocument, database: DatabaseName, mask: [FieldPath]?
    ) throws(HearthError) -> [UInt8] {
        var buffer: [UInt8] = []
        // The name, two timestamps and the keys around the stored fields: about 200 bytes for a short path.
        buffer.reserveCapacity(document.fieldsJSON.count + 256)
        try append(document, database: database, mask: mask, to: &buffer)
        return buffer
    }
}
