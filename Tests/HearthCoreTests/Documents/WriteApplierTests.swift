import Testing

@testable import HearthCore

private func isInteger(_ value: Value) -> Bool {
    if case .integer = value { return true }
    return false
}

@Suite struct WriteApplierTests {
    let path = ResourcePath(segments: ["c", "d"])
    let t1 = Timestamp(seconds: 100, nanos: 0)
    let t2 = Timestamp(seconds: 200, nanos: 0)

    func existing(_ fields: [String: Value]) -> DocumentSnapshot {
        DocumentSnapshot(path: path, fields: fields, createTime: t1, updateTime: t1)
    }

    @Test func maskedUpdateMergesAndDeletesAbsentPaths() throws {
        let write = Write(
            path: path,
            operation: .update(
                fields: ["a": .map(["b": .integer(2)])],
                mask: [FieldPath(segments: ["a", "b"]), FieldPath(segments: ["gone"])]))
        let outcome = try WriteApplier.apply(
            write, to: existing(["a": .map(["x": .null]), "gone": .integer(1), "keep": .boolean(true)]), commitTime: t2)
        #expect(outcome.document?.fields == ["a": .map(["x": .null, "b": .integer(2)]), "keep": .boolean(true)])
        #expect(outcome.document?.createTime == t1)
        #expect(outcome.document?.updateTime == t2)
    }

    @Test func identicalOverwriteKeepsUpdateTime() throws {
        let write = Write(path: path, operation: .update(fields: ["a": .integer(1)], mask: nil))
        let outcome = try WriteApplier.apply(write, to: existing(["a": .integer(1)]), commitTime: t2)
        #expect(!outcome.changed)
        #expect(outcome.document?.updateTime == t1)
    }

    @Test func preconditionsFailWithTheirCodes() {
        let write = { (precondition: Precondition) in
            Write(path: path, operation: .update(fields: [:], mask: nil), precondition: precondition)
        }
        #expect(throws: HearthError.notFound("No document to update: projects/p/databases/(default)/documents/c/d")) {
            try WriteApplier.apply(write(.exists(true)), to: nil, commitTime: t2, database: DatabaseName(project: "p"))
        }
        #expect(throws: HearthError.alreadyExists("Document already exists: c/d")) {
            try WriteApplier.apply(write(.exists(false)), to: existing([:]), commitTime: t2)
        }
        do {
            _ = try WriteApplier.apply(write(.updateTime(t2)), to: existing([:]), commitTime: t2)
            Issue.record("expected a failed precondition")
        } catch {
            #expect(error.code == .failedPrecondition)
        }
    }

    @Test(arguments: [
        (Value?.none, FieldTransform.Kind.increment(.integer(5)), Value.integer(5)),
        (Value.integer(2), .increment(.integer(5)), .integer(7)),
        (Value.integer(.max), .increment(.integer(1)), .integer(.max)),
        (Value.integer(.min), .increment(.integer(-1)), .integer(.min)),
        (Value.integer(2), .increment(.double(0.5)), .double(2.5)),
        (Value.string("x"), .increment(.integer(1)), .integer(1)),
        (Value.integer(3), .maximum(.double(3.0)), .integer(3)),
        (Value.integer(3), .maximum(.double(4.5)), .double(4.5)),
        (Value.integer(3), .minimum(.double(.nan)), .double(.nan)),
        (Value.integer(3), .minimum(.integer(-3)), .integer(-3)),
        (
            Value.array([.integer(1)]), .appendMissingElements([.double(1), .integer(2), .integer(2)]),
            .array([.integer(1), .integer(2)])
        ),
        (
            Value.array([.integer(1), .double(1), .null, .integer(2)]), .removeAllFromArray([.integer(1), .null]),
            .array([.integer(2)])
        ),
        (Value.string("not an array"), .removeAllFromArray([.integer(1)]), .array([])),
    ])
    func transformsFollowFirestoreSemantics(_ current: Value?, _ kind: FieldTransform.Kind, _ expected: Value) throws {
        var fields: [String: Value] = [:]
        if let current { fields["f"] = current }
        let write = Write(
            path: path, operation: .transform,
            transforms: [FieldTransform(fieldPath: FieldPath(segments: ["f"]), kind: kind)])
        let outcome = try WriteApplier.apply(write, to: existing(fields), commitTime: t2)
        let stored = try #require(outcome.document?.fields["f"])
        #expect(stored.isEquivalent(to: expected), "got \(stored)")
        #expect(isInteger(stored) == isInteger(expected), "got \(stored), expected \(expected)")
    }

    @Test func serverTimestampIsTheCommitTime() throws {
        let write = Write(
            path: path, operation: .update(fields: [:], mask: nil),
            transforms: [FieldTransform(fieldPath: FieldPath(segments: ["at"]), kind: .serverTimestamp)])
        let outcome = try WriteApplier.apply(write, to: nil, commitTime: t2)
        #expect(outcome.document?.fields["at"] == .timestamp(t2))
        #expect(outcome.transformResults == [.timestamp(t2)])
    }

    @Test func overlappingTransformsAreRejected() {
        let write = Write(
            path: path, operation: .transform,
            transforms: [
                FieldTransform(fieldPath: FieldPath(segments: ["a"]), kind: .serverTimestamp),
                FieldTransform(fieldPath: FieldPath(segments: ["a", "b"]), kind: .serverTimestamp),
            ])
        #expect(throws: HearthError.self) { try WriteApplier.validate(write) }
    }

    @Test func documentsOverOneMebibyteAreRejected() {
        let big = String(repeating: "x", count: 1_048_576)
        let write = Write(path: path, operation: .update(fields: ["big": .string(big)], mask: nil))
        #expect(throws: HearthError.self) { try WriteApplier.apply(write, to: nil, commitTime: t2) }
    }

    @Test func nestingDeeperThanTwentyIsRejected() {
        var value = Value.integer(1)
        for _ in 0..<21 { value = .map(["m": value]) }
        let write = Write(path: path, operation: .update(fields: ["deep": value], mask: nil))
        #expect(throws: HearthError.self) { try WriteApplier.apply(write, to: nil, commitTime: t2) }
        var shallow = Value.integer(1)
        for _ in 0..<20 { shallow = .map(["m": shallow]) }
        let ok = Write(path: path, operation: .update(fields: ["deep": shallow], mask: nil))
        #expect(throws: Never.self) { try WriteApplier.apply(ok, to: nil, commitTime: t2) }
    }
}
