/// Applies writes to documents: preconditions, update masks, deletes and field transforms, with Firestore's
/// semantics. Pure logic; the storage engine calls it inside its transaction.
public enum WriteApplier {
    /// What one write did.
    public struct Outcome: Sendable, Equatable {
        /// The document after the write; `nil` when it does not exist afterwards.
        public var document: DocumentSnapshot?
        /// One result per transform, in order (`transformResults`).
        public var transformResults: [Value]
        /// Whether the write changed anything (an identical overwrite keeps the previous update time).
        public var changed: Bool
    }

    /// Checks a write on its own, before any document is read.
    /// - Throws: `INVALID_ARGUMENT` for a path that is not a document, a transform on a delete, overlapping
    ///   transforms, or transform operands of the wrong type.
    public static func validate(_ write: Write) throws(HearthError) {
        guard write.path.isDocument else {
            throw .invalidArgument(
                "\"\(write.path)\" is not a document path: a document path has an even number of segments (collection/document)."
            )
        }
        if case .delete = write.operation, !write.transforms.isEmpty {
            throw .invalidArgument("A delete cannot carry field transforms.")
        }
        let paths = write.transforms.map(\.fieldPath)
        for (index, path) in paths.enumerated() {
            for other in paths[(index + 1)...] where path.isPrefix(of: other) || other.isPrefix(of: path) {
                throw .invalidArgument(
                    "Field transforms on \"\(path)\" and \"\(other)\" overlap; each field may be transformed once per write."
                )
            }
        }
        for transform in write.transforms {
            switch transform.kind {
            case .increment(let operand), .maximum(let operand), .minimum(let operand):
                guard operand.isNumber else {
                    throw .invalidArgument(
                        "The operand of the transform on \"\(transform.fieldPath)\" must be an integerValue or a doubleValue."
                    )
                }
            case .appendMissingElements(let elements), .removeAllFromArray(let elements):
                if elements.contains(where: { $0.arrayElements != nil }) {
                    throw .invalidArgument(
                        "The array transform on \"\(transform.fieldPath)\" has an array element; arrays cannot contain arrays."
                    )
                }
            case .serverTimestamp:
                break
            }
        }
    }

    /// Applies one write to the current state of its document.
    /// - Throws: `NOT_FOUND`, `ALREADY_EXISTS` or `FAILED_PRECONDITION` when the precondition fails;
    ///   `INVALID_ARGUMENT` when the result breaks a document limit.
    /// - Parameter database: names the document in error messages, as Firestore does.
    public static func apply(
        _ write: Write, to current: DocumentSnapshot?, commitTime: Timestamp, database: DatabaseName? = nil
    ) throws(HearthError) -> Outcome {
        try checkPrecondition(of: write, on: current, database: database)
        return try applyIgnoringPrecondition(write, to: current, commitTime: commitTime)
    }

    /// Checks a write's precondition against the current state of its document, alone: a store that judges writes
    /// by the rules asks this first and refuses an unauthorized caller before answering with what it says, since
    /// the answer tells whether the document exists.
    /// - Throws: `NOT_FOUND`, `ALREADY_EXISTS` or `FAILED_PRECONDITION`; their messages name the write's own
    ///   document and never its stored metadata (update time).
    public static func checkPrecondition(
        of write: Write, on current: DocumentSnapshot?, database: DatabaseName? = nil
    ) throws(HearthError) {
        // The name is only for error messages (an autoclosure): building it for every write showed in profiles.
        try check(write.precondition, on: current, name: database?.name(of: write.path) ?? write.path.description)
    }

    /// Applies one write as if it had no precondition (after ``checkPrecondition(of:on:database:)``).
    /// - Throws: `INVALID_ARGUMENT` when the result breaks a document limit.
    public static func applyIgnoringPrecondition(
        _ write: Write, to current: DocumentSnapshot?, commitTime: Timestamp
    ) throws(HearthError) -> Outcome {
        var fields: [String: Value]
        switch write.operation {
        case .delete:
            return Outcome(document: nil, transformResults: [], changed: current != nil)
        case .update(let newFields, nil):
            fields = newFields
        case .update(let newFields, let mask?):
            fields = current?.fields ?? [:]
            for path in mask {
                if let value = newFields.value(at: path) {
                    fields.setValue(value, at: path)
                } else {
                    fields.removeValue(at: path)
                }
            }
        case .transform:
            fields = current?.fields ?? [:]
        }
        var results: [Value] = []
        results.reserveCapacity(write.transforms.count)
        for transform in write.transforms {
            let (stored, result) = transformed(
                fields.value(at: transform.fieldPath), by: transform.kind, commitTime: commitTime)
            fields.setValue(stored, at: transform.fieldPath)
            results.append(result)
        }
        try DocumentLimits.validate(fields: fields, path: write.path)
        let changed = current.map { $0.fields != fields } ?? true
        let document = DocumentSnapshot(
            path: write.path, fields: fields,
            createTime: current?.createTime ?? commitTime,
            updateTime: changed ? commitTime : current!.updateTime)
        return Outcome(document: document, transformResults: results, changed: changed)
    }

    private static func check(
        _ precondition: Precondition?, on current: DocumentSnapshot?, name: @autoclosure () -> String
    )
        throws(HearthError)
    {
        switch precondition {
        case nil:
            return
        case .exists(true)?:
            if current == nil { throw .notFound("No document to update: \(name())") }
        case .exists(false)?:
            if current != nil { throw .alreadyExists("Document already exists: \(name())") }
        case .updateTime(let time)?:
            guard let current else { throw .notFound("No document to update: \(name())") }
            // The stored update time stays out of the message: it is the document's metadata, not the caller's.
            if current.updateTime != time {
                throw .failedPrecondition(
                    "The document \(name()) was not last updated at the precondition's update time \(time).")
            }
        }
    }

    /// The stored value and the transform result for one transform applied to a field's current value.
    static func transformed(_ current: Value?, by kind: FieldTransform.Kind, commitTime: Timestamp) -> (Value, Value) {
        switch kind {
        case .serverTimestamp:
            // Firestore documents REQUEST_TIME as the commit time at millisecond precision (the update time
            // keeps its microseconds).
            let time = Value.timestamp(commitTime.truncatedToMilliseconds)
            return (time, time)
        case .increment(let operand):
            guard let current, current.isNumber else { return (operand, operand) }
            let sum = add(current, operand)
            return (sum, sum)
        case .maximum(let operand):
            let result = extreme(current, operand, wantLarger: true)
            return (result, result)
        case .minimum(let operand):
            let result = extreme(current, operand, wantLarger: false)
            return (result, result)
        case .appendMissingElements(let elements):
            var array = current?.arrayElements ?? []
            for element in elements where !array.contains(where: { $0.isEquivalent(to: element) }) {
                array.append(element)
            }
            return (.array(array), .null)
        case .removeAllFromArray(let elements):
            let array = (current?.arrayElements ?? []).filter { item in
                !elements.contains(where: { $0.isEquivalent(to: item) })
            }
            return (.array(array), .null)
        }
    }

    private static func add(_ a: Value, _ b: Value) -> Value {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            let (sum, overflow) = x.addingReportingOverflow(y)
            return .integer(overflow ? (y > 0 ? .max : .min) : sum)
        default:
            return .double(asDouble(a) + asDouble(b))
        }
    }

    private static func extreme(_ current: Value?, _ operand: Value, wantLarger: Bool) -> Value {
        guard let current, current.isNumber else { return operand }
        if current.isNaN || operand.isNaN { return .double(.nan) }
        let order = Value.compare(operand, current)
        return (wantLarger ? order > 0 : order < 0) ? operand : current
    }

    private static func asDouble(_ value: Value) -> Double {
        switch value {
        case .integer(let integer): return Double(integer)
        case .double(let double): return double
        default: return 0
        }
    }
}
