import HearthCore
import HearthGRPC
import HearthListen
import HearthStore
import Testing

/// Requests as Google's Python runtime serializes them decode into the model the REST API uses, and that model
/// encodes back to the very same bytes.
@Suite struct FirestoreRequestTests {
    static let database = DatabaseName(project: "demo")
    static let root = "projects/demo/databases/(default)/documents"

    func path(_ text: String) -> ResourcePath { ResourcePath(segments: text.split(separator: "/").map(String.init)) }
    func field(_ text: String) -> FieldPath { FieldPath(segments: text.split(separator: ".").map(String.init)) }

    func failure(_ body: () throws(HearthError) -> Void) -> HearthError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    static let everyValue: [String: Value] = [
        "null": .null, "yes": .boolean(true), "no": .boolean(false), "zero": .integer(0), "negative": .integer(-5),
        "min": .integer(.min), "max": .integer(.max), "half": .double(1.5), "zeroDouble": .double(0),
        "nan": .double(.nan), "inf": .double(.infinity), "negInf": .double(-.infinity),
        "time": .timestamp(Timestamp(seconds: 1_700_000_000, nanos: 123_456_000)),
        "before1970": .timestamp(Timestamp(seconds: -86_400, nanos: 5_000)), "text": .string("héllo ✓"),
        "empty": .string(""), "blob": .bytes([0, 255, 16]), "ref": .reference("\(root)/users/bob"),
        "place": .geoPoint(latitude: 51.5, longitude: -0.125), "origin": .geoPoint(latitude: 0, longitude: 0),
        "list": .array([.integer(1), .string("a")]), "emptyList": .array([]),
        "nested": .map(["x": .map(["y": .integer(1)])]), "emptyMap": .map([:]),
    ]

    @Test func everyValueKindDecodesAndEncodesBackToTheSameBytes() throws {
        let request = try FirestoreRPC.CommitRequest(protobuf: ProtoFixtures.commitEveryValue)
        #expect(request.database == Self.database)
        #expect(request.transaction == nil)
        let write = try #require(request.writes.first)
        #expect(write.path == path("users/alice"))
        guard case .update(var fields, let mask) = write.operation else {
            Issue.record("not an update: \(write.operation)")
            return
        }
        #expect(mask == nil)
        // NaN is unequal to itself: checked by its bits, then left out of the comparison.
        guard case .double(let nan)? = fields.removeValue(forKey: "nan") else {
            Issue.record("nan is missing")
            return
        }
        #expect(nan.isNaN && nan.bitPattern == Double.nan.bitPattern)
        var expected = Self.everyValue
        expected["nan"] = nil
        #expect(fields == expected)
        #expect(request.protobuf == ProtoFixtures.commitEveryValue)
        let built = FirestoreRPC.CommitRequest(
            database: Self.database,
            writes: [Write(path: path("users/alice"), operation: .update(fields: Self.everyValue, mask: nil))])
        #expect(built.protobuf == ProtoFixtures.commitEveryValue)
    }

    static let transforms: [FieldTransform] = [
        FieldTransform(fieldPath: FieldPath(segments: ["updatedAt"]), kind: .serverTimestamp),
        FieldTransform(fieldPath: FieldPath(segments: ["count"]), kind: .increment(.integer(-2))),
        FieldTransform(fieldPath: FieldPath(segments: ["best"]), kind: .maximum(.double(9.5))),
        FieldTransform(fieldPath: FieldPath(segments: ["worst"]), kind: .minimum(.integer(0))),
        FieldTransform(fieldPath: FieldPath(segments: ["tags"]), kind: .appendMissingElements([.string("x")])),
        FieldTransform(fieldPath: FieldPath(segments: ["odd.name"]), kind: .removeAllFromArray([.null])),
    ]

    @Test func writesWithMasksTransformsAndPreconditions() throws {
        let expected = FirestoreRPC.CommitRequest(
            database: Self.database,
            writes: [
                Write(
                    path: path("users/alice"),
                    operation: .update(
                        fields: ["a": .integer(1)],
                        mask: [field("a"), field("b.c"), FieldPath(segments: ["odd.name"])]),
                    transforms: Self.transforms, precondition: .exists(true)),
                Write(
                    path: path("users/bob"), operation: .delete,
                    precondition: .updateTime(Timestamp(seconds: 1_700_000_001, nanos: 5_000))),
                Write(
                    path: path("counters/c"), operation: .transform,
                    transforms: [FieldTransform(fieldPath: field("n"), kind: .increment(.integer(1)))]),
                Write(
                    path: path("users/carol"), operation: .update(fields: [:], mask: nil), precondition: .exists(false)),
            ],
            transaction: TransactionID(bytes: [1, 2, 3]))
        #expect(try FirestoreRPC.CommitRequest(protobuf: ProtoFixtures.commitWrites) == expected)
        #expect(expected.protobuf == ProtoFixtures.commitWrites)
    }

    @Test func anEmptyCommitHasNoWrites() throws {
        let request = try FirestoreRPC.CommitRequest(protobuf: ProtoFixtures.commitEmpty)
        #expect(request == FirestoreRPC.CommitRequest(database: Self.database, writes: []))
        #expect(request.protobuf == ProtoFixtures.commitEmpty)
    }

    @Test func timestampsAreStoredAtMicroseconds() throws {
        let request = try FirestoreRPC.CommitRequest(protobuf: ProtoFixtures.commitNanosecondTime)
        #expect(
            request.writes.first?.operation
                == .update(fields: ["t": .timestamp(Timestamp(seconds: 1_700_000_000, nanos: 123_456_000))], mask: nil))
    }

    @Test func nestingUpToFirestoresDepthIsReadAndPastTheLimitIsRefused() throws {
        let request = try FirestoreRPC.CommitRequest(protobuf: ProtoFixtures.commitNested20)
        guard case .update(let fields, _)? = request.writes.first?.operation, let deep = fields["deep"] else {
            Issue.record("no deep field")
            return
        }
        #expect(DocumentLimits.depth(of: deep) == 21)
        let error = failure { () throws(HearthError) in
            _ = try FirestoreRPC.CommitRequest(protobuf: ProtoFixtures.commitNested40)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("nested deeper than 100 levels") == true)
    }

    @Test(
        arguments: [
            (ProtoFixtures.commitReservedName, "names matching __.*__ are reserved"),
            (ProtoFixtures.commitNestedArray, "an array cannot directly contain another array"),
            (ProtoFixtures.runQueryFindNearest, "findNearest"),
            (ProtoFixtures.listenRemoveNegative, "a target ID is a positive 32-bit integer"),
        ] as [([UInt8], String)])
    func requestsFirestoreRefusesAreRefusedWithTheRESTMessages(bytes: [UInt8], reason: String) {
        let error = failure { () throws(HearthError) in
            if bytes == ProtoFixtures.runQueryFindNearest {
                _ = try FirestoreRPC.RunQueryRequest(protobuf: bytes)
            } else if bytes == ProtoFixtures.listenRemoveNegative {
                _ = try FirestoreRPC.ListenMessage(protobuf: bytes)
            } else {
                _ = try FirestoreRPC.CommitRequest(protobuf: bytes)
            }
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "no error")")
    }

    @Test func aStructuredQueryWithEveryClause() throws {
        let query = StructuredQuery(
            parent: .root, collectionID: "users",
            filter: .and([
                .field(field("age"), .greaterThanOrEqual, .integer(18)),
                .field(field("city"), .in, .array([.string("SF"), .string("LA")])),
                .or([.field(field("tags"), .arrayContains, .string("x")), .unary(field("nickname"), .isNull)]),
            ]),
            orderBy: [QueryOrder(field: field("age"), descending: true), QueryOrder(field: .documentName)],
            startAt: QueryCursor(values: [.integer(65)], before: true),
            endAt: QueryCursor(values: [.integer(18), .reference("\(Self.root)/users/a")], before: false),
            offset: 2, limit: 10, projection: [field("name"), field("age")])
        let expected = FirestoreRPC.RunQueryRequest(
            database: Self.database, query: query, consistency: .newTransaction(.readOnly))
        #expect(try FirestoreRPC.RunQueryRequest(protobuf: ProtoFixtures.runQuery) == expected)
        #expect(expected.protobuf == ProtoFixtures.runQuery)
    }

    @Test func aCollectionGroupQueryUnderADocument() throws {
        let query = StructuredQuery(
            parent: path("users/alice"), collectionID: "posts", allDescendants: true,
            filter: .field(field("n"), .notIn, .array([.array([.integer(1)])])), limit: 0)
        let expected = FirestoreRPC.RunQueryRequest(
            database: Self.database, query: query, consistency: .transaction(TransactionID(bytes: Array("tx".utf8))),
            explainAnalyze: true)
        #expect(try FirestoreRPC.RunQueryRequest(protobuf: ProtoFixtures.runQueryGroup) == expected)
        #expect(expected.protobuf == ProtoFixtures.runQueryGroup)
    }

    @Test func listenTargetsDecodeToTheSSEChannelsModel() throws {
        let query = StructuredQuery(
            parent: .root, collectionID: "rooms", filter: .field(field("open"), .equal, .boolean(true)),
            orderBy: [QueryOrder(field: field("name"))], limit: 5)
        let add = FirestoreRPC.ListenMessage(
            database: Self.database,
            request: .addTarget(ListenTarget(id: 2, kind: .query(query), resumeToken: ResumeToken(sequence: 42))))
        #expect(try FirestoreRPC.ListenMessage(protobuf: ProtoFixtures.listenAddQuery) == add)
        #expect(add.protobuf == ProtoFixtures.listenAddQuery)

        let documents = FirestoreRPC.ListenMessage(
            database: Self.database,
            request: .addTarget(
                ListenTarget(id: 1, kind: .documents([path("users/alice"), path("users/bob")]), once: true)))
        #expect(try FirestoreRPC.ListenMessage(protobuf: ProtoFixtures.listenAddDocuments) == documents)
        #expect(documents.protobuf == ProtoFixtures.listenAddDocuments)

        let remove = FirestoreRPC.ListenMessage(database: Self.database, request: .removeTarget(2))
        #expect(try FirestoreRPC.ListenMessage(protobuf: ProtoFixtures.listenRemove) == remove)
        #expect(remove.protobuf == ProtoFixtures.listenRemove)

        let labelled = try FirestoreRPC.ListenMessage(protobuf: ProtoFixtures.listenAddQueryWithLabels)
        #expect(labelled.request == .addTarget(ListenTarget(id: 1, kind: .documents([path("users/alice")]))))
    }

    @Test func writeStreamMessages() throws {
        let handshake = FirestoreRPC.WriteStreamRequest(database: Self.database)
        #expect(try FirestoreRPC.WriteStreamRequest(protobuf: ProtoFixtures.writeHandshake) == handshake)
        #expect(handshake.protobuf == ProtoFixtures.writeHandshake)
        let message = FirestoreRPC.WriteStreamRequest(
            database: Self.database, streamID: "s1", writes: [Write(path: path("users/bob"), operation: .delete)],
            streamToken: Array("tok".utf8))
        #expect(try FirestoreRPC.WriteStreamRequest(protobuf: ProtoFixtures.writeWithWrites) == message)
        #expect(message.protobuf == ProtoFixtures.writeWithWrites)
    }

    @Test func readsAndTransactions() throws {
        let get = FirestoreRPC.GetDocumentRequest(
            database: Self.database, path: path("users/alice"), mask: [field("a")],
            consistency: .transaction(TransactionID(bytes: [7])))
        #expect(try FirestoreRPC.GetDocumentRequest(protobuf: ProtoFixtures.getDocument) == get)
        #expect(get.protobuf == ProtoFixtures.getDocument)

        let batch = FirestoreRPC.BatchGetDocumentsRequest(
            database: Self.database, documents: [path("users/alice"), path("users/bob")],
            consistency: .newTransaction(.readWrite))
        #expect(try FirestoreRPC.BatchGetDocumentsRequest(protobuf: ProtoFixtures.batchGet) == batch)
        #expect(batch.protobuf == ProtoFixtures.batchGet)

        let begin = FirestoreRPC.BeginTransactionRequest(database: Self.database, mode: .readOnly)
        #expect(try FirestoreRPC.BeginTransactionRequest(protobuf: ProtoFixtures.beginReadOnly) == begin)
        #expect(begin.protobuf == ProtoFixtures.beginReadOnly)

        let rollback = FirestoreRPC.RollbackRequest(database: Self.database, transaction: TransactionID(bytes: [9, 8]))
        #expect(try FirestoreRPC.RollbackRequest(protobuf: ProtoFixtures.rollback) == rollback)
        #expect(rollback.protobuf == ProtoFixtures.rollback)
    }

    @Test func aDatabaseNameIsRequiredAndChecked() {
        let error = failure { () throws(HearthError) in
            _ = try FirestoreRPC.CommitRequest(protobuf: [])
        }
        #expect(error?.message.contains("is not a database name") == true)
        var writer = ProtoWriter()
        writer.writeString(1, "projects/other/databases/(default)")
        writer.writeMessage(2) { $0.writeString(2, "\(Self.root)/users/bob") }
        let other = failure { () throws(HearthError) in
            _ = try FirestoreRPC.CommitRequest(protobuf: writer.bytes)
        }
        #expect(other?.message.contains("is not under \"projects/other/databases/(default)/documents\"") == true)
    }
}

/// Aggregation queries decode into the REST API's ``AggregationQuery``, aliases named by the same rule.
@Suite struct AggregationMessageTests {
    @Test func aggregationsAndTheirAnswer() throws {
        let total = FieldPath(segments: ["total"])
        let expected = FirestoreRPC.RunAggregationQueryRequest(
            database: FirestoreRequestTests.database,
            aggregation: AggregationQuery(
                query: StructuredQuery(parent: .root, collectionID: "orders"),
                aggregations: [
                    .init(alias: "n", kind: .count(upTo: 100)), .init(alias: "field_1", kind: .sum(total)),
                    .init(alias: "mean", kind: .average(total)),
                ]))
        let decoded = try FirestoreRPC.RunAggregationQueryRequest(protobuf: ProtoFixtures.runAggregationQuery)
        #expect(decoded == expected)
        // The alias the server picked is written back, so the bytes differ from the request in that one alias.
        var named = try FirestoreRPC.RunAggregationQueryRequest(protobuf: expected.protobuf)
        #expect(named == expected)
        named.aggregation.aggregations[1].alias = ""
        #expect(named.protobuf == ProtoFixtures.runAggregationQuery)
        #expect(
            FirestoreRPC.runAggregationQueryResponse(
                ["n": .integer(3), "field_1": .double(7.5), "mean": .null], transaction: nil,
                readTime: Timestamp(seconds: 1_700_000_009, nanos: 0)) == ProtoFixtures.runAggregationQueryResponse)
    }
}

/// The listing requests decode into their members and encode back to the runtime's bytes.
@Suite struct ListRequestTests {
    @Test func listDocumentsDecodesEveryMemberAndEncodesBack() throws {
        let request = try FirestoreRPC.ListDocumentsRequest(protobuf: ProtoFixtures.listDocuments)
        #expect(request.database == DatabaseName(project: "demo"))
        #expect(request.collection == ResourcePath(segments: ["users", "alice", "posts"]))
        #expect(request.pageSize == 20)
        #expect(request.pageToken == "tok")
        #expect(request.orderBy == "a desc")
        #expect(request.mask == [FieldPath(segments: ["a"]), FieldPath(segments: ["b", "c"])])
        #expect(request.consistency == .transaction(TransactionID(bytes: [1, 2])))
        #expect(request.showMissing)
        #expect(request.protobuf == ProtoFixtures.listDocuments)
    }

    @Test func listCollectionIDsDecodesAndEncodesBack() throws {
        let request = try FirestoreRPC.ListCollectionIDsRequest(protobuf: ProtoFixtures.listCollectionIDs)
        #expect(request.parent == ResourcePath(segments: []))
        #expect(request.pageSize == 5)
        #expect(request.pageToken == "abc")
        #expect(request.protobuf == ProtoFixtures.listCollectionIDs)
    }

    @Test func aCollectionAsParentIsRefused() {
        var writer = ProtoWriter()
        writer.writeString(1, "projects/demo/databases/(default)/documents/users")
        writer.writeString(2, "posts")
        #expect(throws: HearthError.self) { try FirestoreRPC.ListDocumentsRequest(protobuf: writer.bytes) }
    }
}

/// Single-document writes decode into the one-write commits REST's PATCH and DELETE become.
@Suite struct DocumentWriteRequestTests {
    @Test func updateDocumentDecodesAsAMergeWithPrecondition() throws {
        let request = try FirestoreRPC.UpdateDocumentRequest(protobuf: ProtoFixtures.updateDocument)
        #expect(request.database == DatabaseName(project: "demo"))
        #expect(
            request.write
                == Write(
                    path: ResourcePath(segments: ["users", "alice"]),
                    operation: .update(fields: ["a": .integer(1)], mask: [FieldPath(segments: ["a"])]),
                    precondition: .exists(true)))
        #expect(request.mask == [FieldPath(segments: ["b"])])
    }

    @Test func deleteDocumentDecodesWithPrecondition() throws {
        let request = try FirestoreRPC.DeleteDocumentRequest(protobuf: ProtoFixtures.deleteDocument)
        #expect(
            request.write
                == Write(
                    path: ResourcePath(segments: ["users", "bob"]), operation: .delete, precondition: .exists(true)))
    }
}

/// CreateDocument, BatchWrite and PartitionQuery, against the official runtime's bytes.
@Suite struct BatchAndCreateMessageTests {
    static let database = DatabaseName(project: "demo")

    @Test func createDocumentDecodesItsCollectionIDFieldsAndMask() throws {
        let request = try FirestoreRPC.CreateDocumentRequest(protobuf: ProtoFixtures.createDocument)
        #expect(request.collection == ResourcePath(segments: ["users", "alice", "posts"]))
        #expect(request.documentID == "p1")
        #expect(request.fields == ["t": .string("hi")])
        #expect(request.mask == [FieldPath(segments: ["t"])])
        #expect(request.protobuf == ProtoFixtures.createDocument)
    }

    @Test func createDocumentRefusesANameAndABadCollectionID() {
        var named = ProtoWriter()
        named.writeString(1, "projects/demo/databases/(default)/documents")
        named.writeString(2, "c")
        named.writeMessage(4) { $0.writeString(1, "projects/demo/databases/(default)/documents/c/x") }
        #expect(throws: HearthError.self) { try FirestoreRPC.CreateDocumentRequest(protobuf: named.bytes) }
        var slash = ProtoWriter()
        slash.writeString(1, "projects/demo/databases/(default)/documents")
        slash.writeString(2, "a/b")
        #expect(throws: HearthError.self) { try FirestoreRPC.CreateDocumentRequest(protobuf: slash.bytes) }
    }

    @Test func batchWriteDecodesItsWritesAndIgnoresLabels() throws {
        let request = try FirestoreRPC.BatchWriteRequest(protobuf: ProtoFixtures.batchWrite)
        #expect(request.database == Self.database)
        #expect(
            request.writes == [
                Write(path: ResourcePath(segments: ["a", "1"]), operation: .delete),
                Write(
                    path: ResourcePath(segments: ["a", "2"]), operation: .update(fields: ["n": .integer(2)], mask: nil)),
            ])
    }

    @Test func batchWriteResponseEqualsTheRuntimesBytes() {
        let bytes = FirestoreRPC.batchWriteResponse([
            .failure(HearthError(.notFound, "Document missing")),
            .success(
                WriteResult(
                    updateTime: Timestamp(microseconds: 1_700_000_000_000_123), transformResults: [], document: nil)),
        ])
        #expect(bytes == ProtoFixtures.batchWriteResponse)
    }

    @Test func partitionQueryTakesCollectionGroupsOnly() throws {
        let request = try FirestoreRPC.PartitionQueryRequest(protobuf: ProtoFixtures.partitionQuery)
        #expect(request.partitionCount == 4)
        #expect(request.query.allDescendants)
        #expect(request.query.collectionID == "c")
        var plain = ProtoWriter()
        plain.writeString(1, "projects/demo/databases/(default)/documents")
        plain.writeMessage(2) { query in query.writeMessage(2) { $0.writeString(2, "c") } }
        plain.writeInt64(3, 2)
        #expect(throws: HearthError.self) { try FirestoreRPC.PartitionQueryRequest(protobuf: plain.bytes) }
    }
}
