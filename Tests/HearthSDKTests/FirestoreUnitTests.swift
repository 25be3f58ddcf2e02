import Foundation
import Hearth
import Synchronization
import Testing

@Suite("Firestore with a fake transport")
struct FirestoreUnitTests {
    static let root = "projects/demo/databases/(default)/documents"

    /// Answers every commit with one empty write result and records the bodies.
    static func committing() -> FakeTransport {
        FakeTransport { _ in FakeTransport.json(#"{"writeResults":[{}],"commitTime":"2024-01-01T00:00:00Z"}"#) }
    }

    func writes(_ transport: FakeTransport) -> [[String: Any]] {
        transport.requests.flatMap { bodyJSON($0)["writes"] as? [[String: Any]] ?? [] }
    }

    @Test func mergeSendsMaskAndTransforms() async throws {
        let transport = Self.committing()
        let db = Firestore.firestore(app: fakeApp(transport))
        try await db.document("users/ann").setData(
            [
                "name": "Ann", "address": ["city": "Berlin"], "at": FieldValue.serverTimestamp(),
                "old": FieldValue.delete(),
            ],
            merge: true)
        let request = try #require(transport.requests.first)
        #expect(request.url.absoluteString.hasSuffix("/v1/\(Self.root):commit"))
        let write = try #require(writes(transport).first)
        #expect((write["update"] as? [String: Any])?["name"] as? String == "\(Self.root)/users/ann")
        let mask = try #require((write["updateMask"] as? [String: Any])?["fieldPaths"] as? [String])
        #expect(Set(mask) == ["name", "address.city", "old"])
        let transforms = try #require(write["updateTransforms"] as? [[String: Any]])
        #expect(transforms.count == 1)
        #expect(transforms[0]["fieldPath"] as? String == "at")
        #expect(transforms[0]["setToServerValue"] as? String == "REQUEST_TIME")
    }

    @Test func updateUsesDottedPathsFieldPathsAndExistsPrecondition() async throws {
        let transport = Self.committing()
        let db = Firestore.firestore(app: fakeApp(transport))
        try await db.document("users/ann").updateData([
            "address.city": "Hamburg", FieldPath(["odd.name"]): 1, "n": FieldValue.increment(Int64(2)),
        ])
        let write = try #require(writes(transport).first)
        let mask = try #require((write["updateMask"] as? [String: Any])?["fieldPaths"] as? [String])
        #expect(Set(mask) == ["address.city", "`odd.name`"])
        #expect((write["currentDocument"] as? [String: Any])?["exists"] as? Bool == true)
        let fields = try #require((write["update"] as? [String: Any])?["fields"] as? [String: Any])
        #expect(fields["odd.name"] != nil)
        #expect(((fields["address"] as? [String: Any])?["mapValue"] as? [String: Any]) != nil)
    }

    @Test func invalidDataFailsBeforeAnyRequest() async throws {
        let transport = Self.committing()
        let db = Firestore.firestore(app: fakeApp(transport))
        await #expect(throws: FirestoreErrorCode.self) {
            try await db.document("a/b").setData(["x": FieldValue.delete()])
        }
        await #expect(throws: FirestoreErrorCode.self) { try await db.document("a/b").setData(["x": [[1]]]) }
        await #expect(throws: FirestoreErrorCode.self) { try await db.document("a/b").setData(["x": NSObject()]) }
        #expect(transport.requests.isEmpty)
    }

    @Test func limitToLastReversesOrderAndResults() async throws {
        let transport = FakeTransport { _ in
            FakeTransport.json(
                #"[{"document":{"name":"\#(Self.root)/c/b","fields":{"n":{"integerValue":"2"}}}},{"document":{"name":"\#(Self.root)/c/a","fields":{"n":{"integerValue":"1"}}}}]"#
            )
        }
        let db = Firestore.firestore(app: fakeApp(transport))
        let snapshot = try await db.collection("c").order(by: "n").limit(toLast: 2).getDocuments()
        #expect(snapshot.documents.map(\.documentID) == ["a", "b"])
        let query = try #require(bodyJSON(transport.requests[0])["structuredQuery"] as? [String: Any])
        let orders = try #require(query["orderBy"] as? [[String: Any]])
        #expect(orders.first?["direction"] as? String == "DESCENDING")
        #expect(query["limit"] as? Int == 2)
    }

    @Test func limitToLastWithoutOrderIsRejected() async throws {
        let db = Firestore.firestore(app: fakeApp(Self.committing()))
        await #expect(throws: FirestoreErrorCode.self) { try await db.collection("c").limit(toLast: 1).getDocuments() }
    }

    @Test(arguments: [
        (404, "NOT_FOUND", FirestoreErrorCode.Code.notFound), (409, "ABORTED", .aborted),
        (409, "ALREADY_EXISTS", .alreadyExists), (400, "FAILED_PRECONDITION", .failedPrecondition),
        (403, "PERMISSION_DENIED", .permissionDenied), (429, "RESOURCE_EXHAUSTED", .resourceExhausted),
    ])
    func statusBodiesMapToCodes(status: Int, name: String, code: FirestoreErrorCode.Code) async throws {
        let transport = FakeTransport { _ in
            FakeTransport.json(#"{"error":{"code":\#(status),"message":"m","status":"\#(name)"}}"#, status: status)
        }
        let db = Firestore.firestore(app: fakeApp(transport))
        do {
            try await db.document("a/b").setData(["x": 1])
            Issue.record("expected an error")
        } catch let error as FirestoreErrorCode {
            #expect(error.code == code)
            #expect((error as NSError).domain == FirestoreErrorCode.errorDomain)
            #expect((error as NSError).code == code.rawValue)
            #expect((error as NSError).localizedDescription == error.message)
        }
    }

    @Test func transactionRetriesOnAbortedThenSucceeds() async throws {
        let commits = Mutex(0)
        let transport = FakeTransport { request in
            if request.url.path.hasSuffix(":beginTransaction") { return FakeTransport.json(#"{"transaction":"dHg="}"#) }
            if request.url.path.hasSuffix(":commit") {
                let attempt = commits.withLock { count in
                    count += 1
                    return count
                }
                if attempt < 3 {
                    return FakeTransport.json(
                        #"{"error":{"code":409,"message":"conflict","status":"ABORTED"}}"#, status: 409)
                }
                return FakeTransport.json(#"{"writeResults":[{}]}"#)
            }
            return FakeTransport.json(#"{"error":{"code":404,"message":"no","status":"NOT_FOUND"}}"#, status: 404)
        }
        let db = Firestore.firestore(app: fakeApp(transport))
        let result = try await db.runTransaction { transaction in
            let snapshot = try transaction.getDocument(db.document("a/b"))
            transaction.setData(["seen": snapshot.exists], forDocument: db.document("a/b"))
            return "done"
        }
        #expect(result == "done")
        #expect(commits.withLock { $0 } == 3)
        let reads = transport.requests.filter { $0.method == "GET" }
        #expect(reads.count == 3)
        #expect(reads.allSatisfy { $0.url.query?.contains("transaction=dHg%3D") == true })
    }

    @Test func transactionGivesUpAfterMaxAttempts() async throws {
        let transport = FakeTransport { request in
            if request.url.path.hasSuffix(":beginTransaction") { return FakeTransport.json(#"{"transaction":"dHg="}"#) }
            return FakeTransport.json(#"{"error":{"code":409,"message":"conflict","status":"ABORTED"}}"#, status: 409)
        }
        let db = Firestore.firestore(app: fakeApp(transport))
        do {
            _ = try await db.runTransaction(with: TransactionOptions(maxAttempts: 2)) { _ in 1 }
            Issue.record("expected aborted")
        } catch FirestoreErrorCode.aborted {}
        #expect(transport.requests.filter { $0.url.path.hasSuffix(":commit") }.count == 2)
    }
}
