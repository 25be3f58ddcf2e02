import HearthCore

/// Sentinel values for `setData` and `updateData` that the server resolves — Hearth's `FieldValue`.
public final class FieldValue: Sendable {
    enum Kind: Sendable {
        case delete
        case serverTimestamp
        case increment(Value)
        case arrayUnion(Result<[Value], FirestoreErrorCode>)
        case arrayRemove(Result<[Value], FirestoreErrorCode>)
    }

    let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// Removes the field (in `updateData`, or `setData(_:merge: true)`).
    public static func delete() -> FieldValue { FieldValue(.delete) }
    /// The server's commit time.
    public static func serverTimestamp() -> FieldValue { FieldValue(.serverTimestamp) }
    /// Adds `value` to the field's number (a missing or non-numeric field becomes `value`).
    public static func increment(_ value: Int64) -> FieldValue { FieldValue(.increment(.integer(value))) }
    /// Adds `value` to the field's number.
    public static func increment(_ value: Double) -> FieldValue { FieldValue(.increment(.double(value))) }
    /// Adds `value` to the field's number.
    public static func increment(_ value: Int) -> FieldValue { FieldValue(.increment(.integer(Int64(value)))) }
    /// Appends each element not already present.
    public static func arrayUnion(_ elements: [Any]) -> FieldValue {
        FieldValue(.arrayUnion(Result { () throws(FirestoreErrorCode) in try UserData.values(elements) }))
    }
    /// Removes every occurrence of each element.
    public static func arrayRemove(_ elements: [Any]) -> FieldValue {
        FieldValue(.arrayRemove(Result { () throws(FirestoreErrorCode) in try UserData.values(elements) }))
    }
}

extension FieldValue: Encodable {
    /// A `FieldValue` inside a model encoded by ``Firestore/Encoder`` becomes the sentinel itself (so a model's
    /// `encode(to:)` may write `FieldValue.serverTimestamp()`, as with Firebase); any other encoder cannot hold it.
    /// - Throws: `EncodingError.invalidValue` outside ``Firestore/Encoder``.
    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            self,
            EncodingError.Context(
                codingPath: encoder.codingPath, debugDescription: "FieldValue encodes only with Firestore.Encoder."))
    }
}
