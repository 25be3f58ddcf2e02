/// One write of a commit, in the shape of Firestore's `google.firestore.v1.Write`.
public struct Write: Sendable, Equatable {
    /// What the write does to its document.
    public enum Operation: Sendable, Equatable {
        /// Sets fields: all of them (`mask == nil`, a full overwrite) or only the masked paths, where a masked
        /// path absent from `fields` deletes that field.
        case update(fields: [String: Value], mask: [FieldPath]?)
        /// Deletes the document.
        case delete
        /// Applies only the field transforms (the document is created if missing).
        case transform
    }

    /// The document written.
    public var path: ResourcePath
    /// The operation.
    public var operation: Operation
    /// Transforms applied after the operation, in order (`updateTransforms`).
    public var transforms: [FieldTransform]
    /// A condition the current document must meet (`currentDocument`).
    public var precondition: Precondition?

    /// Creates a write.
    public init(
        path: ResourcePath, operation: Operation, transforms: [FieldTransform] = [], precondition: Precondition? = nil
    ) {
        self.path = path
        self.operation = operation
        self.transforms = transforms
        self.precondition = precondition
    }
}

/// A condition on the current state of a document (`currentDocument`).
public enum Precondition: Sendable, Equatable {
    /// The document must exist (`true`) or must not exist (`false`).
    case exists(Bool)
    /// The document must exist and have been last updated at exactly this time.
    case updateTime(Timestamp)
}

/// A server-side change to one field (`FieldTransform`).
public struct FieldTransform: Sendable, Equatable {
    /// The kinds of transform Firestore defines.
    public enum Kind: Sendable, Equatable {
        /// `setToServerValue: REQUEST_TIME`: the commit time.
        case serverTimestamp
        /// `increment`: adds a number, saturating on integer overflow.
        case increment(Value)
        /// `maximum`: the larger of the current value and this number.
        case maximum(Value)
        /// `minimum`: the smaller of the current value and this number.
        case minimum(Value)
        /// `appendMissingElements`: array union.
        case appendMissingElements([Value])
        /// `removeAllFromArray`: array remove.
        case removeAllFromArray([Value])
    }

    /// The field transformed.
    public var fieldPath: FieldPath
    /// The transform.
    public var kind: Kind

    /// Creates a transform.
    public init(fieldPath: FieldPath, kind: Kind) {
        self.fieldPath = fieldPath
        self.kind = kind
    }
}

/// A stored document: its fields and its times.
public struct DocumentSnapshot: Sendable, Equatable {
    /// The document's path.
    public var path: ResourcePath
    /// The fields.
    public var fields: [String: Value]
    /// When the document was created.
    public var createTime: Timestamp
    /// When the document was last changed.
    public var updateTime: Timestamp

    /// Creates a snapshot.
    public init(path: ResourcePath, fields: [String: Value], createTime: Timestamp, updateTime: Timestamp) {
        self.path = path
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }
}
