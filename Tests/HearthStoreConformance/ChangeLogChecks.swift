import HearthCore
import HearthStore
import Synchronization
import Testing

extension DocumentStoreConformance {
    static let changeLogChecks: [DocumentConformanceCheck] = [
        ConformanceCheck("the change log records before and after in commit order") { store in
            #expect(try store.head() == 0)
            try await store.commitOrThrow([set("c/a", ["v": .integer(1)])])
            try await store.commitOrThrow([set("c/a", ["v": .integer(2)])])
            try await store.commitOrThrow([Write(path: path("c/a"), operation: .delete)])
            try await store.commitOrThrow([Write(path: path("c/missing"), operation: .delete)])  // no change, no record
            try await store.commitOrThrow([set("c/b", ["v": .integer(2)])])
            try await store.commitOrThrow([set("c/b", ["v": .integer(2)])])  // identical: no change, no record
            let changes = try store.changes(after: 0, limit: 10)
            #expect(changes.map(\.path.description) == ["c/a", "c/a", "c/a", "c/b"])
            #expect(changes.map(\.sequence) == changes.map(\.sequence).sorted())
            #expect(Set(changes.map(\.sequence)).count == 4)
            #expect(changes[0].before == nil)
            #expect(try changes[0].after?.fields() == ["v": .integer(1)])
            #expect(try changes[1].before?.fields() == ["v": .integer(1)])
            #expect(try changes[1].after?.fields() == ["v": .integer(2)])
            #expect(changes[2].after == nil)
            #expect(try store.changes(after: changes[1].sequence, limit: 1).map(\.sequence) == [changes[2].sequence])
            #expect(try store.head() == changes[3].sequence)
        },
        ConformanceCheck("the feed publishes committed changes in order and never failed ones") { store in
            let received = Mutex<[ChangeRecord]>([])
            let subscription = store.changeFeed.subscribe { records in received.withLock { $0 += records } }
            defer { subscription.cancel() }
            try await store.commitOrThrow([set("c/a", ["v": .integer(1)]), set("c/b", ["v": .integer(2)])])
            let failing = await store.commit([
                set("c/x", ["v": .integer(3)]),
                Write(path: path("c/a"), operation: .update(fields: [:], mask: nil), precondition: .exists(false)),
            ])
            #expect(failing.failureCode == .alreadyExists)
            try await store.commitOrThrow([Write(path: path("c/a"), operation: .delete)])
            let records = received.withLock { $0 }
            #expect(records.map(\.path.description) == ["c/a", "c/b", "c/a"])
            #expect(records.map(\.sequence) == records.map(\.sequence).sorted())
            #expect(records.last?.after == nil)
            #expect(try store.changes(after: 0, limit: 10).map(\.sequence) == records.map(\.sequence))
        },
        ConformanceCheck("concurrent commits land in the log once each, in the order the feed saw them") { store in
            let received = Mutex<[ChangeRecord]>([])
            let subscription = store.changeFeed.subscribe { records in received.withLock { $0 += records } }
            defer { subscription.cancel() }
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask { _ = await store.commit([set("c/d\(index % 5)", ["i": .integer(Int64(index))])]) }
                }
            }
            let logged = try store.changes(after: 0, limit: 100)
            #expect(logged.count == 40)
            #expect(received.withLock { $0 }.map(\.sequence) == logged.map(\.sequence))
            #expect(logged.map(\.commitTime) == logged.map(\.commitTime).sorted())
            // Each document's last logged state is what it holds.
            for index in 0..<5 {
                let last = logged.last { $0.path == path("c/d\(index)") }
                #expect(try store.document(at: path("c/d\(index)")) == last?.after)
            }
        },
        ConformanceCheck("the wipe removes every document and logs each deletion") { store in
            try await store.commitOrThrow([set("a/1", [:]), set("a/1/sub/2", [:]), set("b/3", ["x": .null])])
            #expect(try await store.deleteAllDocuments() == 3)
            #expect(try store.documents(at: [path("a/1"), path("a/1/sub/2"), path("b/3")]) == [nil, nil, nil])
            let deletions = try store.changes(after: 0, limit: 100).filter { $0.after == nil }
            #expect(Set(deletions.map(\.path.description)) == ["a/1", "a/1/sub/2", "b/3"])
        },
    ]
}
