import HearthCore
import HearthGRPC
import Testing

@Suite struct GRPCFramingTests {
    @Test func messagesComeOutWholeHoweverTheBytesAreSplit() throws {
        let messages: [[UInt8]] = [ProtoFixtures.commitA, [], ProtoFixtures.listenAddQuery]
        let stream = messages.flatMap(GRPCFraming.frame)
        for chunk in [1, 2, 5, 7, stream.count] {
            var reader = GRPCMessageReader()
            var received: [[UInt8]] = []
            for offset in stride(from: 0, to: stream.count, by: chunk) {
                reader.append(stream[offset..<min(offset + chunk, stream.count)])
                while let message = try reader.next() { received.append(message) }
            }
            #expect(received == messages, "chunks of \(chunk)")
            #expect(reader.pendingBytes == 0)
        }
    }

    @Test func theLengthIsCheckedBeforeTheBodyArrives() {
        var reader = GRPCMessageReader(maxMessageBytes: 100)
        reader.append([0, 0, 0, 0, 101])
        #expect(
            throws: HearthError(
                .resourceExhausted, "Received a message of 101 bytes, more than the maximum of 100 bytes.")
        ) {
            try reader.next()
        }
        var tenMiB = GRPCMessageReader()
        tenMiB.append([0, 0, 0xA0, 0, 1])
        // 10 MiB and one byte: refused from the prefix alone.
        #expect(throws: HearthError.self) { try tenMiB.next() }
    }

    @Test func compressedMessagesAreRefusedWithoutNegotiation() {
        var reader = GRPCMessageReader()
        reader.append([1, 0, 0, 0, 0])
        #expect(throws: HearthError.self) { try reader.next() }
    }

    @Test func trailersCarryTheCodeAndAPercentEncodedMessage() {
        #expect(GRPCFraming.trailers(for: nil).map(\.value) == ["0"])
        let trailers = GRPCFraming.trailers(for: HearthError(.notFound, "Document \"a/é\" 100% gone\n"))
        #expect(trailers.map(\.name) == ["grpc-status", "grpc-message"])
        #expect(trailers.map(\.value) == ["5", "Document \"a/%C3%A9\" 100%25 gone%0A"])
    }
}
