import HearthCore

/// A write's new fields already encoded as stored (`fields` JSON and automatic index entries), worked out on the
/// submitting thread so the single writer thread does not: it is the one thread every commit waits for.
///
/// Only a full overwrite without transforms (`update` with no mask and no `updateTransforms`) stores exactly the
/// fields it carries, whatever the current document; any other write's fields depend on it and are encoded by the
/// writer.
struct EncodedFields: Sendable {
    let json: [UInt8]
    let entries: [IndexEntry]

    init?(precomputing write: Write) {
        guard case .update(let fields, nil) = write.operation, write.transforms.isEmpty else { return nil }
        json = Value.encodeFields(fields)
        entries = IndexEntry.entries(for: fields)
    }
}
