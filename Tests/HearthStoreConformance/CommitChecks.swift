import HearthCore
import HearthStore
import Synchronization
import Testing

extension DocumentStoreConformance {
    static let commitChecks: [DocumentConformanceCheck] = [
        ConformanceCheck("committed documents read back with their times") { store in
            let result = try await store.commitOrThrow([
                set("c/a", ["n": .integer(1)]), set("c/b", ["s": .string("x")]),
            ])
            #expect(result.writeResults.count == 2)
            #expect(result.writeResults.allSatisfy { $0.updateTime == result.commitTime })
            let stored = try #require(try store.document(at: path("c/a")))
            #expect(try stored.fields() == ["n": .integer(1)])
            #expect(stored.createTime == result.commitTime)
            let both = try store.documents(at: [path("c/b"), path("c/none"), path("c/a")])
            #expect(both.map { $0?.path.description } == ["c/b", nil, "c/a"])
        },
        ConformanceCheck("a failed precondition rolls back the whole commit but not its neighbours") { store in
            try await store.commitOrThrow([set("c/existing", ["v": .integer(0)])])
            let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
                for index in 0..<32 {
                    group.addTask {
                        var writes = [set("c/doc\(index)", ["v": .integer(Int64(index))])]
                        if index % 2 == 0 {
                            writes.append(
                                Write(
                                    path: path("c/existing"), operation: .update(fields: [:], mask: nil),
                                    precondition: .exists(false)))
                        }
                        let result = await store.commit(writes)
                        return (index, (try? result.get()) != nil)
                    }
                }
                return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
            }
            for index in 0..<32 {
                #expect(outcomes[index] == (index % 2 == 1), "commit \(index)")
                let stored = try store.document(at: path("c/doc\(index)"))
                #expect((stored != nil) == (index % 2 == 1), "doc\(index) half-written or lost")
            }
            #expect(try store.document(at: path("c/existing"))?.fields() == ["v": .integer(0)])
        },
        ConformanceCheck("preconditions answer with Firestore's codes") { store in
            let created = try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
            func code(_ precondition: Precondition, _ target: String) async -> ErrorCode? {
                let write = Write(
                    path: path(target), operation: .update(fields: ["v": .integer(2)], mask: nil),
                    precondition: precondition)
                switch await store.commit([write]) {
                case .success: return nil
                case .failure(let error): return error.code
                }
            }
            #expect(await code(.exists(false), "c/a") == .alreadyExists)
            #expect(await code(.exists(true), "c/missing") == .notFound)
            #expect(await code(.updateTime(Timestamp(microseconds: 1)), "c/a") == .failedPrecondition)
            #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(1)])
            #expect(await code(.updateTime(created.commitTime), "c/a") == nil)
            #expect(try store.document(at: path("c/a"))?.fields() == ["v": .integer(2)])
        },
        ConformanceCheck("transforms resolve against the stored document and the commit time") { store in
            try await store.commitOrThrow([set("c/a", ["n": .integer(5), "tags": .array([.string("x")])])])
            let write = Write(
                path: path("c/a"), operation: .transform,
                transforms: [
                    FieldTransform(fieldPath: FieldPath(segments: ["n"]), kind: .increment(.integer(2))),
                    FieldTransform(fieldPath: FieldPath(segments: ["at"]), kind: .serverTimestamp),
                    FieldTransform(
                        fieldPath: FieldPath(segments: ["tags"]),
                        kind: .appendMissingElements([.string("x"), .string("y")])),
                ])
            let result = try await store.commitOrThrow([write])
            let fields = try #require(try store.document(at: path("c/a"))).fields()
            #expect(fields["n"] == .integer(7))
            // Stored timestamps keep milliseconds, as Firestore's server timestamps do.
            guard case .timestamp(let at) = fields["at"] else {
                Issue.record("no server timestamp: \(String(describing: fields["at"]))")
                return
            }
            #expect(at <= result.commitTime && at.microseconds / 1000 == result.commitTime.microseconds / 1000)
            #expect(fields["tags"] == .array([.string("x"), .string("y")]))
            // An array transform answers null, as Firestore's do.
            #expect(result.writeResults[0].transformResults == [.integer(7), .timestamp(at), .null])
        },
        ConformanceCheck("later writes of a commit see its earlier ones, and a mask merges") { store in
            let increment = Write(
                path: path("c/a"), operation: .transform,
                transforms: [FieldTransform(fieldPath: FieldPath(segments: ["n"]), kind: .increment(.integer(1)))])
            try await store.commitOrThrow([
                set("c/a", ["n": .integer(1), "keep": .boolean(true)]), increment, increment,
                Write(
                    path: path("c/a"),
                    operation: .update(fields: ["m": .string("merged")], mask: [FieldPath(segments: ["m"])])),
            ])
            #expect(
                try store.document(at: path("c/a"))?.fields()
                    == ["n": .integer(3), "keep": .boolean(true), "m": .string("merged")])
        },
        ConformanceCheck("commit times strictly increase") { store in
            var last = Timestamp(microseconds: 0)
            for index in 0..<20 {
                let time = try await store.commitOrThrow([set("c/d\(index % 3)", ["i": .integer(Int64(index))])])
                    .commitTime
                #expect(time > last)
                last = time
            }
        },
        ConformanceCheck("a refusing judge applies nothing and is the answer") { store in
            try await store.commitOrThrow([set("c/other", ["v": .integer(1)])])
            let seen = Mutex<[String]>([])
            let denied = HearthError(.permissionDenied, "Missing or insufficient permissions.")
            let refused = await store.commit(
                [set("c/a", ["v": .integer(1)]), Write(path: path("c/other"), operation: .delete)],
                judge: { proposal throws(HearthError) in
                    let before = try proposal.document(at: path("c/other"))
                    seen.withLock {
                        $0 = proposal.changes.map(\.write.path.description) + [before == nil ? "missing" : "found"]
                    }
                    throw denied
                })
            #expect(refused == .failure(denied))
            #expect(seen.withLock { $0 } == ["c/a", "c/other", "found"])
            #expect(try store.document(at: path("c/a")) == nil)
            #expect(try store.document(at: path("c/other")) != nil)
            // The judge speaks before a failed precondition: a refused caller learns nothing from it.
            let create = Write(
                path: path("c/other"), operation: .update(fields: [:], mask: nil), precondition: .exists(false))
            #expect(await store.commit([create], judge: { _ throws(HearthError) in throw denied }) == .failure(denied))
            #expect(await store.commit([create], judge: { _ in }).failureCode == .alreadyExists)
        },
        ConformanceCheck("a write receipt's key is applied once and answers with what it recorded") { store in
            let receipt = WriteReceipt<CommitResult>(id: "k") { Array($0.commitTime.rfc3339.utf8) }
            let increment = Write(
                path: path("c/d"), operation: .transform,
                transforms: [FieldTransform(fieldPath: FieldPath(segments: ["n"]), kind: .increment(.integer(1)))])
            let first = try await store.commit([increment], receipt: receipt).get()
            #expect(try store.recordedAnswer(forWriteID: "k") == Array(first.commitTime.rfc3339.utf8))
            let again = await store.commit([increment], receipt: receipt)
            #expect(again.failureCode == .unavailable)
            #expect(try store.document(at: path("c/d"))?.fields()["n"] == .integer(1), "the resend applied nothing")
            #expect(try store.recordedAnswer(forWriteID: "other") == nil)
        },
        ConformanceCheck("statistics count commits and writes") { store in
            try await store.commitOrThrow([set("c/a", [:]), set("c/b", [:])])
            _ = await store.commit([
                Write(path: path("c/a"), operation: .update(fields: [:], mask: nil), precondition: .exists(false))
            ])
            let statistics = store.statistics()
            #expect(statistics.commits == 1)
            #expect(statistics.writes == 2)
            #expect(statistics.failedCommits == 1)
            #expect(statistics.databaseBytes > 0)
        },
        ConformanceCheck("a path that is not a document is refused") { store in
            let write = Write(path: path("c"), operation: .update(fields: [:], mask: nil))
            #expect(await store.commit([write]).failureCode == .invalidArgument)
        },
    ]
}

extension Result where Failure == HearthError {
    /// The failure's code, `nil` on success.
    var failureCode: ErrorCode? {
        if case .failure(let error) = self { return error.code }
        return nil
    }
}
