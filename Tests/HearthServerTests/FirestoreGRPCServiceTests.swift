import HearthCore
import HearthGRPC
import HearthListen
import HearthStore
import HearthTesting
import Testing

/// The Firestore gRPC service's methods, called in process without a transport: the same documents, rules and
/// listen hub as the REST API, answered in protobuf.
@Suite("Firestore gRPC service")
struct FirestoreGRPCServiceTests {
    static let database = DatabaseName(project: "demo")
    static let root = "/v1/projects/demo/databases/(default)/documents"

    static func path(_ text: String) throws -> ResourcePath { try ResourcePath(validating: text) }

    static func set(_ text: String, _ fields: [String: Value]) throws -> Write {
        Write(path: try path(text), operation: .update(fields: fields, mask: nil))
    }

    @Test("a gRPC commit is read back by REST and by GetDocument; a missing document is NOT_FOUND")
    func commitThenGet() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let commit = await server.grpc(
            "Commit",
            [
                FirestoreRPC.CommitRequest(database: Self.database, writes: [try Self.set("c/a", ["n": .integer(7)])])
                    .protobuf
            ])
        #expect(commit.status == nil, "\(String(describing: commit.status))")
        let commitTime = try ProtoFields(try #require(commit.messages.first)).message(2)
        #expect(try commitTime.varint(1) ?? 0 > 0, "the commit time's seconds")

        let rest = try await server.request("GET", Self.root + "/c/a")
        #expect(try rest.json()["fields"]?["n"]?["integerValue"] == .string("7"), "\(rest)")

        let get = await server.grpc(
            "GetDocument",
            [FirestoreRPC.GetDocumentRequest(database: Self.database, path: try Self.path("c/a")).protobuf])
        let document = try ProtoFields(try #require(get.messages.first))
        #expect(try document.string(1) == "projects/demo/databases/(default)/documents/c/a")
        let entry = try document.message(2)
        #expect(try entry.string(1) == "n")
        #expect(try entry.message(2).varint(2) == 7, "integer_value 7")

        let missing = await server.grpc(
            "GetDocument",
            [FirestoreRPC.GetDocumentRequest(database: Self.database, path: try Self.path("c/zz")).protobuf])
        #expect(missing.status?.code == .notFound)
        #expect(missing.messages.isEmpty)
    }

    @Test("BatchGetDocuments answers found and missing in the order named; RunQuery streams results in order")
    func batchGetAndRunQuery() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let writes = try [3, 1, 2].map { try Self.set("c/d\($0)", ["n": .integer(Int64($0))]) }
        let commit = await server.grpc(
            "Commit", [FirestoreRPC.CommitRequest(database: Self.database, writes: writes).protobuf])
        #expect(commit.status == nil)

        let names = try ["c/d2", "c/nope", "c/d1"].map(Self.path)
        let batch = await server.grpc(
            "BatchGetDocuments",
            [FirestoreRPC.BatchGetDocumentsRequest(database: Self.database, documents: names).protobuf])
        #expect(batch.status == nil)
        #expect(batch.messages.count == 3)
        let answers = try batch.messages.map(ProtoFields.init)
        #expect(try answers[0].message(1).string(1)?.hasSuffix("/c/d2") == true)
        #expect(try answers[1].string(2)?.hasSuffix("/c/nope") == true, "missing names the document")
        #expect(try answers[2].message(1).string(1)?.hasSuffix("/c/d1") == true)

        let query = StructuredQuery(
            parent: .init(segments: []), collectionID: "c",
            orderBy: [QueryOrder(field: try FieldPath(parsing: "n"), descending: true)])
        let run = await server.grpc(
            "RunQuery", [FirestoreRPC.RunQueryRequest(database: Self.database, query: query).protobuf])
        #expect(run.status == nil, "\(String(describing: run.status))")
        let ids = try run.messages.map {
            try ProtoFields($0).message(1).string(1)?.split(separator: "/").last.map(String.init)
        }
        #expect(ids == ["d3", "d2", "d1"])
    }

    @Test(
        "the Write stream: a handshake answered with a stream ID and token, writes answered in order, a forged token refused"
    )
    func writeStream() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let (send, answers, _) = server.openGRPC("Write")
        var events = answers.makeAsyncIterator()
        send.yield(FirestoreRPC.WriteStreamRequest(database: Self.database).protobuf)
        guard case .message(let handshakeBytes) = await events.next() else {
            Issue.record("no handshake")
            return
        }
        let handshake = try ProtoFields(handshakeBytes)
        let streamID = try #require(try handshake.string(1))
        #expect(!streamID.isEmpty)
        let token = try #require(try handshake.bytes(2))
        #expect(try handshake.bytes(3) == nil, "no write results in the handshake")

        send.yield(
            FirestoreRPC.WriteStreamRequest(
                database: Self.database, writes: [try Self.set("w/one", ["v": .string("x")])], streamToken: token
            ).protobuf)
        guard case .message(let firstBytes) = await events.next() else {
            Issue.record("no answer")
            return
        }
        let first = try ProtoFields(firstBytes)
        let firstToken = try #require(try first.bytes(2))
        #expect(firstToken != token, "every answer carries a new token")
        #expect(try first.messages(3).count == 1, "one write result")
        #expect(try first.message(4).varint(1) ?? 0 > 0, "a commit time")
        let rest = try await server.request("GET", Self.root + "/w/one")
        #expect(rest.status == 200, "the write is committed before it is answered")

        send.yield(
            FirestoreRPC.WriteStreamRequest(
                database: Self.database, writes: [try Self.set("w/two", [:])], streamToken: [9, 9, 9]
            ).protobuf)
        guard case .end(let status) = await events.next() else {
            Issue.record("the stream went on")
            return
        }
        #expect(status?.code == .invalidArgument, "\(String(describing: status))")
        let notWritten = try await server.request("GET", Self.root + "/w/two")
        #expect(notWritten.status == 404, "a refused request writes nothing")
        send.finish()
    }

    @Test("Listen: a query target gets ADD, its document and CURRENT, then a later commit arrives live")
    func listen() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        _ = await server.grpc(
            "Commit",
            [
                FirestoreRPC.CommitRequest(database: Self.database, writes: [try Self.set("l/a", ["n": .integer(1)])])
                    .protobuf
            ])
        let (send, answers, cancel) = server.openGRPC("Listen")
        var events = answers.makeAsyncIterator()
        let query = StructuredQuery(parent: .init(segments: []), collectionID: "l")
        send.yield(
            FirestoreRPC.ListenMessage(
                database: Self.database, request: .addTarget(ListenTarget(id: 5, kind: .query(query)))
            ).protobuf)
        var changes: [String] = []
        while changes.last != "current" {
            guard case .message(let bytes) = await events.next() else {
                Issue.record("ended: \(changes)")
                return
            }
            changes.append(try Self.describe(bytes))
        }
        #expect(changes.first == "add")
        #expect(changes.contains("document l/a"), "\(changes)")

        let later = await server.grpc(
            "Commit",
            [
                FirestoreRPC.CommitRequest(database: Self.database, writes: [try Self.set("l/b", ["n": .integer(2)])])
                    .protobuf
            ])
        #expect(later.status == nil)
        var live: [String] = []
        while !live.contains("document l/b") {
            guard case .message(let bytes) = await events.next() else {
                Issue.record("ended: \(live)")
                return
            }
            live.append(try Self.describe(bytes))
        }
        // Closing its side does not end a listen: the client still receives.
        send.finish()
        let afterClose = await server.grpc(
            "Commit",
            [
                FirestoreRPC.CommitRequest(database: Self.database, writes: [try Self.set("l/c", ["n": .integer(3)])])
                    .protobuf
            ])
        #expect(afterClose.status == nil)
        var closing: [String] = []
        while !closing.contains("document l/c") {
            guard case .message(let bytes) = await events.next() else {
                Issue.record("ended after the client closed its side: \(closing)")
                return
            }
            closing.append(try Self.describe(bytes))
        }
        cancel()
        while let event = await events.next() {
            if case .end = event { break }
        }
    }

    @Test("an unknown method is UNIMPLEMENTED; a unary call with two requests or none is refused")
    func callShape() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let unknown = await server.grpc("Frobnicate", [[]])
        #expect(unknown.status?.code == .unimplemented)
        let request = FirestoreRPC.GetDocumentRequest(database: Self.database, path: try Self.path("c/a")).protobuf
        let two = await server.grpc("GetDocument", [request, request])
        #expect(two.status?.code == .internal)
        let none = await server.grpc("GetDocument", [])
        #expect(none.status?.code == .internal)
        let garbage = await server.grpc("GetDocument", [[0xFF, 0xFF]])
        #expect(garbage.status?.code == .invalidArgument, "\(String(describing: garbage.status))")
    }

    /// A listen answer in brief: `add`, `current`, `document <path>`, or its field number.
    static func describe(_ bytes: [UInt8]) throws -> String {
        let response = try ProtoFields(bytes)
        if let change = try response.optionalMessage(2) {
            switch try change.varint(1) ?? 0 {
            case 1: return "add"
            case 3: return "current"
            case let other: return "targetChange \(other)"
            }
        }
        if let change = try response.optionalMessage(3) {
            let name = try change.message(1).string(1) ?? ""
            return "document " + name.split(separator: "/").suffix(2).joined(separator: "/")
        }
        return "field \(response.numbers)"
    }
}

/// A protobuf message's fields by number, for reading answers in tests without a schema.
struct ProtoFields {
    private var values: [Int: [Field]] = [:]

    enum Field {
        case varint(UInt64)
        case bytes([UInt8])
    }

    init(_ bytes: [UInt8]) throws {
        var reader = try ProtoReader(bytes)
        while let tag = try reader.nextTag() {
            switch tag.wireType {
            case .varint: values[tag.number, default: []].append(.varint(try reader.readVarint()))
            case .lengthDelimited: values[tag.number, default: []].append(.bytes(try reader.readBytes()))
            default: try reader.skip(tag)
            }
        }
    }

    var numbers: [Int] { values.keys.sorted() }

    func varint(_ number: Int) throws -> UInt64? {
        guard case .varint(let value)? = values[number]?.last else { return nil }
        return value
    }

    func bytes(_ number: Int) throws -> [UInt8]? {
        guard case .bytes(let value)? = values[number]?.last else { return nil }
        return value
    }

    func string(_ number: Int) throws -> String? { try bytes(number).map { String(decoding: $0, as: UTF8.self) } }

    func optionalMessage(_ number: Int) throws -> ProtoFields? { try bytes(number).map { try ProtoFields($0) } }

    func message(_ number: Int) throws -> ProtoFields {
        guard let message = try optionalMessage(number) else { throw ProtoFieldsError.missing(number, numbers) }
        return message
    }

    func messages(_ number: Int) throws -> [ProtoFields] {
        try (values[number] ?? []).map { field in
            guard case .bytes(let bytes) = field else { throw ProtoFieldsError.missing(number, numbers) }
            return try ProtoFields(bytes)
        }
    }
}

enum ProtoFieldsError: Error {
    case missing(Int, [Int])
}
