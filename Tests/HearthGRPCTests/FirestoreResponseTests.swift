import HearthCore
import HearthGRPC
import HearthListen
import HearthStore
import Testing

/// Answers Hearth encodes are byte for byte what Google's Python runtime serializes for the same message.
@Suite struct FirestoreResponseTests {
    static let database = DatabaseName(project: "demo")
    static let root = "projects/demo/databases/(default)/documents"

    static let alice = StoredDocument(
        path: ResourcePath(segments: ["users", "alice"]),
        fieldsJSON: Value.encodeFields([
            "name": .string("Alice"), "age": .integer(30), "tags": .array([.string("a")]),
        ]),
        createTime: Timestamp(seconds: 1_600_000_000, nanos: 0),
        updateTime: Timestamp(seconds: 1_700_000_000, nanos: 2_000))

    static let readTime = Timestamp(seconds: 1_700_000_005, nanos: 0)

    @Test func commitResponse() {
        let time = Timestamp(seconds: 1_700_000_000, nanos: 1_000)
        let commit = CommitResult(
            commitTime: time,
            writeResults: [
                WriteResult(updateTime: time, transformResults: [.integer(5), .timestamp(time)], document: nil),
                WriteResult(updateTime: nil, transformResults: [], document: nil),
            ])
        #expect(FirestoreRPC.commitResponse(commit) == ProtoFixtures.commitResponse)
    }

    @Test func queryAndBatchGetAnswers() throws {
        let transaction = TransactionID(bytes: Array("tx".utf8))
        #expect(
            try FirestoreRPC.runQueryResponse(
                document: Self.alice, database: Self.database, transaction: transaction, readTime: Self.readTime)
                == ProtoFixtures.runQueryResponse)
        #expect(
            try FirestoreRPC.runQueryResponse(
                document: nil, database: Self.database, transaction: nil, readTime: Self.readTime, done: true)
                == ProtoFixtures.runQueryResponseDone)
        #expect(
            try FirestoreRPC.batchGetResponse(
                found: Self.alice, missing: Self.alice.path, database: Self.database, mask: nil, transaction: nil,
                readTime: Self.readTime) == ProtoFixtures.batchGetFound)
        #expect(
            try FirestoreRPC.batchGetResponse(
                found: nil, missing: ResourcePath(segments: ["users", "zed"]), database: Self.database, mask: nil,
                transaction: transaction, readTime: Self.readTime) == ProtoFixtures.batchGetMissing)
        #expect(FirestoreRPC.beginTransactionResponse(TransactionID(bytes: [1, 2])) == ProtoFixtures.beginResponse)
    }

    @Test func aMaskKeepsOnlyItsFields() throws {
        let masked = try FirestoreRPC.batchGetResponse(
            found: Self.alice, missing: Self.alice.path, database: Self.database,
            mask: [FieldPath(segments: ["name"])], transaction: nil, readTime: Self.readTime)
        #expect(masked.count < ProtoFixtures.batchGetFound.count)
        #expect(masked.contains(subsequence: Array("Alice".utf8)))
        #expect(!masked.contains(subsequence: Array("tags".utf8)))
    }

    @Test func listenResponses() throws {
        let token = ResumeToken(sequence: 42)
        let cases: [(ListenResponse, [UInt8])] = [
            (.targetChange(TargetChange(.add, targetIDs: [2])), ProtoFixtures.listenAdd),
            (
                .targetChange(
                    TargetChange(
                        .noChange, resumeToken: token, readTime: Timestamp(seconds: 1_700_000_006, nanos: 7_000))),
                ProtoFixtures.listenMarker
            ),
            (
                .targetChange(
                    TargetChange(
                        .remove, targetIDs: [3, 300],
                        cause: HearthError(.permissionDenied, "Missing or insufficient permissions."))),
                ProtoFixtures.listenRemoveCause
            ),
            (
                .documentChange(ListenDocument(Self.alice, database: Self.database), targetIDs: [1, 2]),
                ProtoFixtures.listenDocumentChange
            ),
            (
                .documentDelete(
                    name: "\(Self.root)/users/alice", removedTargetIDs: [1],
                    readTime: Timestamp(seconds: 1_700_000_007, nanos: 0)),
                ProtoFixtures.listenDocumentDelete
            ),
            (
                .documentRemove(
                    name: "\(Self.root)/users/alice", removedTargetIDs: [2],
                    readTime: Timestamp(seconds: 1_700_000_007, nanos: 0)),
                ProtoFixtures.listenDocumentRemove
            ),
            (.filter(targetID: 2, count: 3), ProtoFixtures.listenFilter),
        ]
        for (response, bytes) in cases {
            #expect(try FirestoreRPC.listenResponse(response) == bytes, "\(response)")
        }
    }

    @Test func writeStreamAnswers() {
        #expect(
            FirestoreRPC.writeStreamResponse(streamID: "s1", streamToken: [0, 1], commit: nil)
                == ProtoFixtures.writeHandshakeResponse)
        let time = Timestamp(seconds: 1_700_000_008, nanos: 0)
        let commit = CommitResult(
            commitTime: time, writeResults: [WriteResult(updateTime: time, transformResults: [], document: nil)])
        #expect(
            FirestoreRPC.writeStreamResponse(streamID: "", streamToken: [0, 2], commit: commit)
                == ProtoFixtures.writeResponse)
    }

    @Test func aStatusCarriesItsCodeAndMessage() throws {
        var writer = ProtoWriter()
        HearthError(.aborted, "Transaction contention.").writeProtobufStatus(to: &writer)
        let decoded = try HearthError(protobufStatus: try ProtoReader(writer.bytes))
        #expect(decoded == HearthError(.aborted, "Transaction contention."))
        #expect(writer.bytes == [0x08, 10, 0x12, 23] + Array("Transaction contention.".utf8))
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in the bytes.
    func contains(subsequence needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<$0 + needle.count]) == needle }
    }
}
