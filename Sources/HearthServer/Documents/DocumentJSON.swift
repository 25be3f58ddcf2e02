import HearthCore
import HearthStore

/// Encodes stored documents as Firestore REST `Document` JSON without decoding their fields when no mask
/// applies: the stored `fields` JSON is spliced in as is.
enum DocumentJSON {
    static func append(
        _ document: StoredDocument, database: DatabaseName, mask: [FieldPath]?, to buffer: inout [UInt8]
    ) throws(HearthError) {
        JSONWriter.appendASCII(#"{"name":"#, into: &buffer)
        database.appendJSONName(of: document.path, to: &buffer)
        if let mask {
            let fields = try document.fields()
            var projected: [String: Value] = [:]
            for path in mask {
                if let value = fields.value(at: path) { projected.setValue(value, at: path) }
            }
            if !projected.isEmpty {
                JSONWriter.appendASCII(#","fields":"#, into: &buffer)
                Value.appendFields(projected, to: &buffer)
            }
        } else if !document.fieldsJSON.elementsEqual("{}".utf8) {
            JSONWriter.appendASCII(#","fields":"#, into: &buffer)
            buffer.append(contentsOf: document.fieldsJSON)
        }
        JSONWriter.appendASCII(#","createTime":""#, into: &buffer)
        document.createTime.appendRFC3339(to: &buffer)
        JSONWriter.appendASCII(#"","updateTime":""#, into: &buffer)
        document.updateTime.appendRFC3339(to: &buffer)
        JSONWriter.appendASCII(#""}"#, into: &buffer)
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
