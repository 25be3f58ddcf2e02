import HearthCore
import HearthGRPC
import Testing

/// The wire codec itself: scalars, unknown fields of every wire type, limits and malformed input.
@Suite struct ProtoCodecTests {
    /// Writes `body` with a fresh writer and returns the bytes.
    func encode(_ body: (inout ProtoWriter) -> Void) -> [UInt8] {
        var writer = ProtoWriter()
        body(&writer)
        return writer.bytes
    }

    /// The error a decode throws, if any.
    func failure(_ body: () throws(HearthError) -> Void) -> HearthError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func scalarsRoundTripIncludingTheirExtremes() throws {
        let bytes = encode { writer in
            writer.writeInt64(1, .min)
            writer.writeInt64(2, .max)
            writer.writeInt32(3, -1)
            writer.writeDouble(4, -.infinity)
            writer.writeString(5, "héllo")
            writer.writeBytes(6, [0, 255])
            writer.writeBool(7, true)
            writer.writeTag(8, .varint)
            writer.writeVarint(ProtoZigZag.encode(-3))
        }
        var reader = try ProtoReader(bytes)
        #expect(try reader.nextTag() == ProtoTag(number: 1, wireType: .varint))
        #expect(try reader.readInt64() == .min)
        _ = try reader.nextTag()
        #expect(try reader.readInt64() == .max)
        _ = try reader.nextTag()
        #expect(try reader.readInt32() == -1)
        #expect(try reader.nextTag() == ProtoTag(number: 4, wireType: .fixed64))
        #expect(try reader.readDouble() == -.infinity)
        _ = try reader.nextTag()
        #expect(try reader.readString() == "héllo")
        _ = try reader.nextTag()
        #expect(try reader.readBytes() == [0, 255])
        _ = try reader.nextTag()
        #expect(try reader.readBool())
        _ = try reader.nextTag()
        #expect(try reader.readSInt64() == -3)
        #expect(try reader.nextTag() == nil)
    }

    @Test func negativeInt32TakesTenBytesAsProtobufWritesIt() {
        // remove_target = -1 as the Python runtime wrote it: tag, then ten bytes of sign-extended varint.
        #expect(ProtoFixtures.listenRemoveNegative.suffix(11) == [0x18] + Array(repeating: 0xFF, count: 9) + [0x01])
        #expect(encode { $0.writeInt32(3, -1) } == Array(ProtoFixtures.listenRemoveNegative.suffix(11)))
    }

    @Test(arguments: [(0, 0), (-1, 1), (1, 2), (-2, 3), (Int64.max, 2 * UInt64(Int64.max)), (Int64.min, UInt64.max)])
    func zigzag(value: Int64, encoded: UInt64) {
        #expect(ProtoZigZag.encode(value) == encoded)
        #expect(ProtoZigZag.decode(encoded) == value)
    }

    @Test func longNestedMessagesGetMultiByteLengths() throws {
        let text = String(repeating: "x", count: 20_000)
        let bytes = encode { writer in writer.writeMessage(1) { $0.writeString(2, text) } }
        var reader = try ProtoReader(bytes)
        _ = try reader.nextTag()
        var inner = try reader.readMessage()
        _ = try inner.nextTag()
        #expect(try inner.readString() == text)
        #expect(reader.isAtEnd)
    }

    @Test func packedAndUnpackedRepeatedNumbersReadTheSame() throws {
        func ids(_ bytes: [UInt8]) throws -> [Int32] {
            var reader = try ProtoReader(bytes)
            var ids: [Int32] = []
            while let tag = try reader.nextTag() {
                if tag.number == 2 { try reader.readRepeatedInt32(tag, into: &ids) } else { try reader.skip(tag) }
            }
            return ids
        }
        #expect(try ids(ProtoFixtures.targetIDsPacked) == [1, 2, 300, -1])
        #expect(try ids(ProtoFixtures.targetIDsUnpacked) == [1, 2, 300, -1])
        let packed = encode { writer in
            writer.writeInt32(1, 3)
            writer.writePackedInt32(2, [1, 2, 300, -1])
        }
        #expect(packed == ProtoFixtures.targetIDsPacked)
    }

    @Test func unknownFieldsOfEveryWireTypeAreSkippedAtEveryLevel() throws {
        let withUnknown = try FirestoreRPC.CommitRequest(protobuf: ProtoFixtures.commitUnknownFields)
        let plain = try FirestoreRPC.CommitRequest(protobuf: ProtoFixtures.commitA)
        #expect(withUnknown == plain)
        #expect(withUnknown.writes.first?.operation == .update(fields: ["a": .integer(1)], mask: nil))
        // Encoding drops them: the bytes are the plain message's.
        #expect(withUnknown.protobuf == ProtoFixtures.commitA)
    }

    @Test(
        arguments: [
            ([0x08], "ends inside a varint"),
            ([0x0A, 0x05, 0x61], "ends inside a length-delimited field"),
            ([0x12, 0x80], "ends inside a varint"),
            ([0x09, 1, 2, 3], "ends inside a fixed64"),
            ([0x0D, 1], "ends inside a fixed32"),
            ([0x0E], "wire type 6"),
            ([0x0F], "wire type 7"),
            ([0x00], "field number 0"),
            ([0x0C], "an end-group tag (field 1) with no group open"),
            ([0x0B, 0x14], "group 1 closed by the end tag of field 2"),
            ([0x0B, 0x08, 0x01], "a group (field 1) without its end tag"),
            ([0x08] + Array(repeating: 0xFF, count: 10) + [0x01], "a varint longer than 64 bits"),
            ([0xF8, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], "a field tag longer than 32 bits"),
        ] as [([UInt8], String)])
    func malformedInputIsAClearError(bytes: [UInt8], reason: String) {
        let error = failure { () throws(HearthError) in
            var reader = try ProtoReader([0x0A, UInt8(bytes.count)] + bytes)
            _ = try reader.nextTag()
            var message = try reader.readMessage()
            while let tag = try message.nextTag() { try message.skip(tag) }
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "no error")")
    }

    @Test func invalidUTF8InAStringIsRefused() {
        var writer = ProtoWriter()
        writer.writeBytes(1, [0xC3, 0x28])
        let error = failure { () throws(HearthError) in
            var reader = try ProtoReader(writer.bytes)
            _ = try reader.nextTag()
            _ = try reader.readString()
        }
        #expect(error?.message.contains("not valid UTF-8") == true)
    }

    @Test func aMessageLargerThanTenMiBIsRefusedBeforeItIsRead() {
        let error = failure { () throws(HearthError) in
            _ = try ProtoReader([UInt8](repeating: 0, count: ProtoLimits.maxMessageBytes + 1))
        }
        #expect(error?.message.contains("more than the maximum of 10485760 bytes") == true)
        #expect(failure { () throws(HearthError) in _ = try ProtoReader([UInt8](repeating: 0, count: 16)) } == nil)
    }

    @Test func nestingIsBoundedForMessagesAndForSkippedGroups() {
        // 101 nested messages: one past the limit.
        var bytes: [UInt8] = []
        for _ in 0...ProtoLimits.maxDepth {
            var writer = ProtoWriter()
            writer.writeBytes(1, bytes)
            bytes = writer.bytes
        }
        func descend(_ reader: inout ProtoReader) throws(HearthError) {
            while let tag = try reader.nextTag() {
                var inner = try reader.readMessage()
                _ = tag
                try descend(&inner)
            }
        }
        let error = failure { () throws(HearthError) in
            var reader = try ProtoReader(bytes)
            try descend(&reader)
        }
        #expect(error?.message.contains("nested deeper than 100 levels") == true)
        // Groups nested 101 deep inside an unknown field.
        let groups: [UInt8] =
            Array(repeating: 0x0B, count: ProtoLimits.maxDepth + 1)
            + Array(repeating: 0x0C, count: ProtoLimits.maxDepth + 1)
        let groupError = failure { () throws(HearthError) in
            var reader = try ProtoReader(groups)
            while let tag = try reader.nextTag() { try reader.skip(tag) }
        }
        #expect(groupError?.message.contains("groups nested deeper than 100 levels") == true)
        // 100 deep is fine.
        let fine: [UInt8] =
            Array(repeating: 0x0B, count: ProtoLimits.maxDepth) + Array(repeating: 0x0C, count: ProtoLimits.maxDepth)
        #expect(
            failure { () throws(HearthError) in
                var reader = try ProtoReader(fine)
                while let tag = try reader.nextTag() { try reader.skip(tag) }
            } == nil)
    }

    @Test func everyTruncationOfARealRequestIsAnErrorNotACrash() {
        let bytes = ProtoFixtures.commitWrites
        var failures = 0
        for length in 0..<bytes.count {
            do {
                _ = try FirestoreRPC.CommitRequest(protobuf: Array(bytes.prefix(length)))
            } catch {
                failures += 1
            }
        }
        // Only a cut between two top-level fields leaves a message that still reads; the database comes first, so
        // every cut before the last write's end loses a write or breaks one.
        #expect(failures >= bytes.count - 8)
        #expect(failures < bytes.count)
    }
}

/// Map entries come out in the order Google's runtime writes them, so equal maps give equal bytes.
@Suite struct ProtoMapOrderTests {
    @Test func mapKeysFollowTheRuntimesDeterministicOrder() throws {
        let names = ["b", "a", "ab", "abc", "ba", "", "é", "z"]
        var fields: [String: Value] = [:]
        for (index, name) in names.enumerated() { fields[name] = .integer(Int64(index)) }
        var writer = ProtoWriter()
        Value.map(fields).writeProtobuf(to: &writer)
        #expect(writer.bytes == ProtoFixtures.mapOrder)
    }
}
