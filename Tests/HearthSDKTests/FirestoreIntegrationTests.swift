import Foundation
import Hearth
import HearthTestSupport
import Synchronization
import Testing

@Suite("Firestore against a real server", .sharedServer)
struct FirestoreIntegrationTests {
    func database() throws -> Firestore { Firestore.firestore(app: try SharedServer.server.app()) }

    /// Issue #20: `Firestore.firestore(app:database:)` is a separate database on the server, one instance per name,
    /// with its own reads, writes and listeners.
    @Test func namedDatabaseIsItsOwn() async throws {
        let app = try SharedServer.server.app()
        let named = Firestore.firestore(app: app, database: "sdk-orders")
        #expect(named === Firestore.firestore(app: app, database: "sdk-orders"))
        #expect(named !== Firestore.firestore(app: app))
        #expect(Firestore.firestore(app: app, database: "(default)") === Firestore.firestore(app: app))
        let name = unique("named")
        let seen = Events<[String]>()
        let registration = named.collection(name).addSnapshotListener { snapshot, _ in
            if let snapshot { seen.add(snapshot.documents.map(\.documentID)) }
        }
        defer { registration.remove() }
        try await named.collection(name).document("o1").setData(["total": 3])
        _ = await seen.next { $0 == ["o1"] }
        #expect(try await named.collection(name).document("o1").getDocument().data()?["total"] as? Int == 3)
        let inDefault = try await Firestore.firestore(app: app).collection(name).document("o1").getDocument(
            source: .server)
        #expect(!inDefault.exists)
    }

    @Test func crudRoundTripsEveryType() async throws {
        let db = try database()
        let collection = db.collection(unique("crud"))
        let other = db.document("refs/target")
        let when = Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_000)
        let reference = try await collection.addDocument(data: [
            "name": "Ann", "age": 36, "score": 9.5, "admin": true, "nothing": NSNull(), "when": when,
            "where": GeoPoint(latitude: 52.5, longitude: 13.4), "bytes": Data([1, 2, 3]), "ref": other,
            "tags": ["a", "b"], "address": ["city": "Berlin", "zip": "10115"],
        ])
        #expect(reference.documentID.count == 20)
        let snapshot = try await reference.getDocument()
        #expect(snapshot.exists)
        let data = try #require(snapshot.data())
        #expect(data["name"] as? String == "Ann")
        #expect(data["age"] as? Int == 36)
        #expect(data["score"] as? Double == 9.5)
        #expect(data["admin"] as? Bool == true)
        #expect(data["nothing"] is NSNull)
        #expect(data["when"] as? Timestamp == when)
        #expect(data["where"] as? GeoPoint == GeoPoint(latitude: 52.5, longitude: 13.4))
        #expect(data["bytes"] as? Data == Data([1, 2, 3]))
        #expect((data["ref"] as? DocumentReference)?.path == "refs/target")
        #expect(data["tags"] as? [String] == ["a", "b"])
        #expect(snapshot.get("address.city") as? String == "Berlin")
        #expect(snapshot.get(FieldPath(["address", "zip"])) as? String == "10115")

        try await reference.updateData(["age": 37, "address.city": "Hamburg", "nothing": FieldValue.delete()])
        let updated = try #require(try await reference.getDocument().data())
        #expect(updated["age"] as? Int == 37)
        #expect((updated["address"] as? [String: Any])?["city"] as? String == "Hamburg")
        #expect((updated["address"] as? [String: Any])?["zip"] as? String == "10115")
        #expect(updated["nothing"] == nil)

        try await reference.setData(["extra": 1, "address": ["country": "DE"]], merge: true)
        let merged = try #require(try await reference.getDocument().data())
        #expect(merged["name"] as? String == "Ann")
        #expect((merged["address"] as? [String: Any])?.count == 3)

        try await reference.setData(["name": "Bob", "age": 1, "extra": 2], mergeFields: ["name", "extra"])
        let partial = try #require(try await reference.getDocument().data())
        #expect(partial["name"] as? String == "Bob")
        #expect(partial["age"] as? Int == 37)
        #expect(partial["extra"] as? Int == 2)

        try await reference.setData(["only": true])
        #expect(try await reference.getDocument().data()?.count == 1)

        try await reference.delete()
        let gone = try await reference.getDocument()
        #expect(!gone.exists)
        #expect(gone.data() == nil)
    }

    @Test func autoIDDocumentsAreNewAndDistinct() async throws {
        let collection = Firestore.firestore(app: try SharedServer.server.app()).collection(unique("auto"))
        let first = collection.document()
        let second = collection.document()
        #expect(first.documentID.count == 20)
        #expect(first.documentID != second.documentID)
        #expect(first.path == "\(collection.collectionID)/\(first.documentID)")
        #expect(!(try await first.getDocument().exists))
        try await first.setData(["n": 1])
        #expect(try await first.getDocument().get("n") as? Int == 1)
        #expect(try await collection.getDocuments().documents.map(\.documentID) == [first.documentID])
    }

    @Test func updateOfMissingDocumentIsNotFound() async throws {
        let db = try database()
        do {
            try await db.collection(unique("missing")).document("nope").updateData(["a": 1])
            Issue.record("expected notFound")
        } catch let error as FirestoreErrorCode {
            #expect(error.code == .notFound)
        }
        await #expect(throws: FirestoreErrorCode.self) {
            try await db.collection(unique("bad")).document("x").setData(["a": FieldValue.delete()])
        }
        let cached = try await db.collection(unique("x")).getDocuments(source: .cache)
        #expect(cached.isEmpty && cached.metadata.isFromCache)
        await #expect(throws: FirestoreErrorCode.self) {
            try await db.collection(unique("x")).document("never-read").getDocument(source: .cache)
        }
    }

    @Test func transforms() async throws {
        let db = try database()
        let reference = db.collection(unique("transforms")).document("counter")
        try await reference.setData(["count": 1, "tags": ["a"], "at": FieldValue.serverTimestamp()])
        try await reference.updateData([
            "count": FieldValue.increment(Int64(4)), "tags": FieldValue.arrayUnion(["b", "a"]),
            "ratio": FieldValue.increment(0.5),
        ])
        try await reference.updateData(["tags": FieldValue.arrayRemove(["a"])])
        let data = try #require(try await reference.getDocument().data())
        #expect(data["count"] as? Int == 5)
        #expect(data["tags"] as? [String] == ["b"])
        #expect(data["ratio"] as? Double == 0.5)
        let at = try #require(data["at"] as? Timestamp)
        #expect(abs(at.dateValue().timeIntervalSinceNow) < 60)
    }

    /// Seeds `count` documents `n0…` with `n`, `even` and `group` fields.
    func seed(_ db: Firestore, _ count: Int) async throws -> CollectionReference {
        let collection = db.collection(unique("query"))
        let batch = db.batch()
        for n in 0..<count {
            batch.setData(
                ["n": n, "even": n % 2 == 0, "group": ["a", "b", "c"][n % 3], "tags": ["t\(n % 4)"]],
                forDocument: collection.document("d\(n)"))
        }
        try await batch.commit()
        return collection
    }

    func numbers(_ snapshot: QuerySnapshot) -> [Int] { snapshot.documents.compactMap { $0.data()["n"] as? Int } }

    @Test func queriesFilterOrderLimitAndPage() async throws {
        let db = try database()
        let collection = try await seed(db, 12)
        #expect(numbers(try await collection.order(by: "n").getDocuments()) == Array(0..<12))
        #expect(
            numbers(try await collection.order(by: "n", descending: true).limit(to: 3).getDocuments()) == [11, 10, 9])
        #expect(numbers(try await collection.order(by: "n").limit(toLast: 3).getDocuments()) == [9, 10, 11])
        #expect(numbers(try await collection.whereField("n", isEqualTo: 4).getDocuments()) == [4])
        #expect(
            numbers(try await collection.whereField("n", isNotEqualTo: 4).whereField("n", isLessThan: 3).getDocuments())
                == [0, 1, 2])
        #expect(numbers(try await collection.whereField("n", isLessThanOrEqualTo: 1).getDocuments()) == [0, 1])
        #expect(numbers(try await collection.whereField("n", isGreaterThan: 10).getDocuments()) == [11])
        #expect(numbers(try await collection.whereField("n", isGreaterThanOrEqualTo: 10).getDocuments()) == [10, 11])
        #expect(
            numbers(try await collection.whereField("tags", arrayContains: "t1").getDocuments()).sorted() == [1, 5, 9])
        #expect(
            numbers(try await collection.whereField("tags", arrayContainsAny: ["t1", "t2"]).getDocuments()).sorted()
                == [1, 2, 5, 6, 9, 10])
        #expect(numbers(try await collection.whereField("n", in: [3, 7, 99]).getDocuments()).sorted() == [3, 7])
        #expect(numbers(try await collection.whereField("n", notIn: Array(2..<12)).getDocuments()) == [0, 1])
        #expect(numbers(try await collection.whereField(FieldPath.documentID(), isEqualTo: "d5").getDocuments()) == [5])
        // Every operator also takes a FieldPath, as in Firebase.
        let n = FieldPath(["n"])
        let tags = FieldPath(["tags"])
        #expect(numbers(try await collection.whereField(n, isLessThanOrEqualTo: 1).getDocuments()) == [0, 1])
        #expect(numbers(try await collection.whereField(n, isGreaterThanOrEqualTo: 10).getDocuments()) == [10, 11])
        #expect(
            numbers(try await collection.whereField(tags, arrayContains: "t1").getDocuments()).sorted() == [1, 5, 9])
        #expect(
            numbers(try await collection.whereField(tags, arrayContainsAny: ["t1", "t2"]).getDocuments()).sorted()
                == [1, 2, 5, 6, 9, 10])
        #expect(numbers(try await collection.whereField(n, notIn: Array(2..<12)).getDocuments()) == [0, 1])
        let or = collection.whereFilter(
            .orFilter([
                .whereField("n", isEqualTo: 1),
                .andFilter([.whereField("even", isEqualTo: true), .whereField("group", isEqualTo: "b")]),
            ]))
        #expect(numbers(try await or.getDocuments()).sorted() == [1, 4, 10])
        // Cursors by value and by document.
        let ordered = collection.order(by: "n")
        #expect(numbers(try await ordered.start(at: [3]).end(before: [6]).getDocuments()) == [3, 4, 5])
        #expect(numbers(try await ordered.start(after: [3]).end(at: [6]).getDocuments()) == [4, 5, 6])
        let page1 = try await ordered.limit(to: 5).getDocuments()
        let last = try #require(page1.documents.last)
        let page2 = try await ordered.start(afterDocument: last).limit(to: 5).getDocuments()
        #expect(numbers(page2) == [5, 6, 7, 8, 9])
        #expect(numbers(try await ordered.start(atDocument: last).limit(to: 2).getDocuments()) == [4, 5])
        #expect(numbers(try await ordered.end(beforeDocument: last).getDocuments()) == [0, 1, 2, 3])
        #expect(numbers(try await ordered.end(atDocument: last).getDocuments()) == [0, 1, 2, 3, 4])
        // Equality plus order on another field needs a declared composite index, as in Firestore; by ID it does not.
        #expect(
            numbers(try await collection.whereField("group", isEqualTo: "b").getDocuments()).sorted() == [1, 4, 7, 10])
    }

    @Test func aggregationsAndCollectionGroups() async throws {
        let db = try database()
        let collection = try await seed(db, 10)
        #expect(try await collection.count.getAggregation(source: .server).count == 10)
        #expect(
            try await collection.whereField("even", isEqualTo: true).count.getAggregation(source: .server).count == 5)
        let aggregate = try await collection.aggregate([.count(), .sum("n"), .average("n")]).getAggregation(
            source: .server)
        #expect((aggregate.get(.sum("n")) as? NSNumber)?.intValue == 45)
        #expect((aggregate.get(.average("n")) as? NSNumber)?.doubleValue == 4.5)
        #expect(aggregate.count == 10)

        let group = unique("comments")
        try await db.collection("posts").document("p1").collection(group).document("c1").setData(["k": 1])
        try await db.collection("posts").document("p2").collection(group).document("c2").setData(["k": 2])
        // Ordering a collection group by a field needs a declared index (as in Firestore), so sort here.
        let all = try await db.collectionGroup(group).getDocuments()
        #expect(all.documents.map(\.reference.path).sorted() == ["posts/p1/\(group)/c1", "posts/p2/\(group)/c2"])
    }

    @Test func batchesAreAtomic() async throws {
        let db = try database()
        let collection = db.collection(unique("batch"))
        try await db.batch()
            .setData(["v": 1], forDocument: collection.document("a"))
            .setData(["v": 2], forDocument: collection.document("b"))
            .commit()
        // The update of a missing document fails the whole batch.
        do {
            try await db.batch()
                .updateData(["v": 10], forDocument: collection.document("a"))
                .updateData(["v": 10], forDocument: collection.document("missing"))
                .commit()
            Issue.record("expected notFound")
        } catch let error as FirestoreErrorCode {
            #expect(error.code == .notFound)
        }
        #expect(try await collection.document("a").getDocument().get("v") as? Int == 1)
        try await db.batch().deleteDocument(collection.document("a")).setData(
            ["w": true], forDocument: collection.document("b"), merge: true
        ).commit()
        #expect(try await collection.getDocuments().count == 1)
        #expect(try await collection.document("b").getDocument().data()?.count == 2)
    }

    @Test func transactionsUnderContentionLoseNoIncrement() async throws {
        let db = try database()
        let counter = db.collection(unique("tx")).document("counter")
        try await counter.setData(["value": 0])
        let workers = 4
        let perWorker = 5
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<workers {
                group.addTask {
                    for _ in 0..<perWorker {
                        _ = try await db.runTransaction(with: TransactionOptions(maxAttempts: 50)) { transaction in
                            let snapshot = try transaction.getDocument(counter)
                            let value = snapshot.get("value") as? Int ?? 0
                            transaction.updateData(["value": value + 1], forDocument: counter)
                            return value + 1
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await counter.getDocument().get("value") as? Int == workers * perWorker)
    }

    @Test func transactionErrorsRollBackAndReadsMustPrecedeWrites() async throws {
        let db = try database()
        let document = db.collection(unique("tx")).document("doc")
        try await document.setData(["v": 1])
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await db.runTransaction { transaction in
                transaction.setData(["v": 2], forDocument: document)
                throw Refused()
            }
        }
        #expect(try await document.getDocument().get("v") as? Int == 1)
        await #expect(throws: FirestoreErrorCode.self) {
            try await db.runTransaction { transaction in
                transaction.setData(["v": 3], forDocument: document)
                return try transaction.getDocument(document).exists
            }
        }
        let created: Bool = try await db.runTransaction { transaction in
            let missing = db.collection("txnew").document(UUID().uuidString)
            let exists = try transaction.getDocument(missing).exists
            transaction.setData(["made": true], forDocument: missing)
            return !exists
        }
        #expect(created)
    }

    @Test func offlineFailsClearly() async throws {
        let name = "offline-\(UUID().uuidString.prefix(6))"
        let storage = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-sdk-\(UUID().uuidString)")
        removeAtExit(storage)
        HearthApp.configure(
            name: name,
            options: HearthOptions(
                serverURL: URL(string: "http://127.0.0.1:9")!, projectID: "demo", storageDirectory: storage))
        let app = try #require(HearthApp.app(name: name))
        let db = Firestore.firestore(app: app)
        do {
            _ = try await db.runTransaction { _ in 1 }
            Issue.record("expected unavailable")
        } catch let error as FirestoreErrorCode {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("offline"))
        }
        do {
            _ = try await db.document("a/b").getDocument()
            Issue.record("expected unavailable")
        } catch FirestoreErrorCode.unavailable {}
    }

    @Test func completionHandlerForms() async throws {
        let db = try database()
        let reference = db.collection(unique("completion")).document("d")
        let error: (any Error)? = await withCheckedContinuation { continuation in
            reference.setData(["a": 1]) { continuation.resume(returning: $0) }
        }
        #expect(error == nil)
        let value: Int? = await withCheckedContinuation { continuation in
            reference.getDocument { snapshot, _ in continuation.resume(returning: snapshot?.get("a") as? Int) }
        }
        #expect(value == 1)
        let count: Int? = await withCheckedContinuation { continuation in
            reference.parent.getDocuments { snapshot, _ in continuation.resume(returning: snapshot?.count) }
        }
        #expect(count == 1)
    }

    @Test func signedInRequestsCarryTheIDToken() async throws {
        let server = try SharedServer.server
        let app = server.app()
        try await Auth.auth(app: app).createUser(withEmail: uniqueEmail(), password: "correct horse")
        let db = Firestore.firestore(app: app)
        let reference = db.collection(unique("authed")).document("d")
        try await reference.setData(["owner": Auth.auth(app: app).currentUser?.uid ?? ""])
        #expect(try await reference.getDocument().exists)
    }
}
