import Foundation
import Hearth
import HearthTestSupport
import Synchronization
import Testing

struct Address: Codable, Equatable {
    var city: String
    var zip: String?
}

struct Person: Codable, Equatable {
    @DocumentID var id: String?
    var name: String
    var age: Int
    var score: Double
    var admin: Bool
    var born: Date
    var lastSeen: Timestamp
    var home: GeoPoint
    var avatar: Data
    var tags: [String]
    var address: Address
    var nickname: String?
    @ExplicitNull var middleName: String?
    @ServerTimestamp var createdAt: Timestamp?
}

@Suite("Codable mapping")
struct CodableUnitTests {
    static let sample = Person(
        id: "ignored", name: "Ann", age: 36, score: 9.5, admin: true, born: Date(timeIntervalSince1970: 86_400),
        lastSeen: Timestamp(seconds: 1_700_000_000, nanoseconds: 5_000), home: GeoPoint(latitude: 1, longitude: 2),
        avatar: Data([9, 8]), tags: ["x"], address: Address(city: "Berlin", zip: nil), nickname: nil,
        middleName: nil, createdAt: nil)

    @Test func encoderProducesFirestoreData() throws {
        let data = try Firestore.Encoder().encode(Self.sample)
        #expect(data["id"] == nil, "@DocumentID is not a field")
        #expect(data["name"] as? String == "Ann")
        #expect(data["born"] as? Timestamp == Timestamp(seconds: 86_400, nanoseconds: 0))
        #expect(data["home"] as? GeoPoint == GeoPoint(latitude: 1, longitude: 2))
        #expect(data["avatar"] as? Data == Data([9, 8]))
        #expect(data["nickname"] == nil, "nil optionals are left out")
        #expect(data["middleName"] is NSNull, "@ExplicitNull writes null")
        #expect(data["createdAt"] is FieldValue, "a nil @ServerTimestamp asks the server for the time")
        #expect((data["address"] as? [String: Any])?["city"] as? String == "Berlin")
    }

    @Test func decoderReadsWhatTheEncoderWrote() throws {
        var data = try Firestore.Encoder().encode(Self.sample)
        data["createdAt"] = Timestamp(seconds: 5, nanoseconds: 0)
        data["middleName"] = NSNull()
        let decoded = try Firestore.Decoder().decode(Person.self, from: data)
        var expected = Self.sample
        expected.id = nil
        expected.createdAt = Timestamp(seconds: 5, nanoseconds: 0)
        #expect(decoded == expected)
    }

    @Test func missingFieldIsADecodingError() {
        #expect(throws: DecodingError.self) { try Firestore.Decoder().decode(Address.self, from: ["zip": "1"]) }
    }
}

@Suite("Codable against a real server", .sharedServer)
struct CodableIntegrationTests {
    @Test func roundTripThroughTheServer() async throws {
        let db = Firestore.firestore(app: try SharedServer.server.app())
        let collection = db.collection(unique("people"))
        let added = Mutex<DocumentReference?>(nil)
        try await acknowledged { done in
            try added.withLock { $0 = try collection.addDocument(from: CodableUnitTests.sample, completion: done) }
        }
        let reference = try #require(added.withLock { $0 })
        let snapshot = try await reference.getDocument()
        let person = try snapshot.data(as: Person.self)
        #expect(person.id == reference.documentID)
        #expect(person.name == "Ann")
        #expect(person.born == CodableUnitTests.sample.born)
        #expect(person.lastSeen == CodableUnitTests.sample.lastSeen)
        #expect(person.address == CodableUnitTests.sample.address)
        #expect(person.middleName == nil)
        let created = try #require(person.createdAt)
        #expect(abs(created.dateValue().timeIntervalSinceNow) < 60)

        var changed = person
        changed.age = 40
        try await acknowledged { done in try reference.setData(from: changed, completion: done) }
        let reread = try await reference.getDocument().data(as: Person.self)
        #expect(reread.age == 40)
        #expect(reread.createdAt == person.createdAt, "a set createdAt is written back as it is")

        let all = try await collection.getDocuments().documents.map { try $0.data(as: Person.self) }
        #expect(all.map(\.id) == [reference.documentID])
        let missing = try await collection.document("missing").getDocument()
        #expect(throws: FirestoreErrorCode.self) { try missing.data(as: Person.self) }
    }
}

/// Runs a Firebase-shaped Codable write (synchronous, throwing, with a completion) and waits for its completion: the
/// server's acknowledgement.
func acknowledged(_ start: (@escaping @Sendable ((any Error)?) -> Void) throws -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        do {
            try start { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        } catch {
            continuation.resume(throwing: error)
        }
    }
}
