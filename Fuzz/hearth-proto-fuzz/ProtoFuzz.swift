import Foundation
import HearthCore
import HearthGRPC
import HearthListen

/// Fuzzes the protobuf codec and the Firestore messages: every input is decoded as each request the gRPC service
/// reads (`CommitRequest`, `RunQueryRequest` and its `StructuredQuery`, `ListenRequest`, `WriteRequest`,
/// `RunAggregationQueryRequest`, …) and read as gRPC-framed messages; what decodes is encoded again and must decode
/// to the same model. Nothing may crash, hang or exhaust the stack.
///
/// Built normally, this is a replayer: `hearth-proto-fuzz FILE…` runs each file once (a crash corpus, CI). Built
/// with `swift build --product hearth-proto-fuzz -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING` on Linux, libFuzzer
/// drives ``ProtoFuzz/run(_:)``.
enum ProtoFuzz {
    static let database = DatabaseName(project: "demo")

    static func run(_ input: UnsafeBufferPointer<UInt8>) {
        let bytes = Array(input)
        roundTrip(bytes, FirestoreRPC.CommitRequest.init(protobuf:), \.protobuf)
        roundTrip(bytes, FirestoreRPC.RunQueryRequest.init(protobuf:), \.protobuf)
        roundTrip(bytes, FirestoreRPC.ListenMessage.init(protobuf:), \.protobuf)
        roundTrip(bytes, { bytes throws(HearthError) in try FirestoreRPC.WriteStreamRequest(protobuf: bytes) }, \.protobuf)
        roundTrip(bytes, FirestoreRPC.BatchGetDocumentsRequest.init(protobuf:), \.protobuf)
        roundTrip(bytes, FirestoreRPC.GetDocumentRequest.init(protobuf:), \.protobuf)
        roundTrip(bytes, FirestoreRPC.RunAggregationQueryRequest.init(protobuf:), \.protobuf)
        roundTrip(bytes, FirestoreRPC.ListDocumentsRequest.init(protobuf:), \.protobuf)
        roundTrip(bytes, FirestoreRPC.ListCollectionIDsRequest.init(protobuf:), \.protobuf)
        roundTrip(bytes, FirestoreRPC.CreateDocumentRequest.init(protobuf:), \.protobuf)
        roundTrip(bytes, FirestoreRPC.BatchWriteRequest.init(protobuf:), \.protobuf)
        // Decoded only (the server never sends these): nothing may crash.
        _ = try? FirestoreRPC.UpdateDocumentRequest(protobuf: bytes)
        _ = try? FirestoreRPC.DeleteDocumentRequest(protobuf: bytes)
        _ = try? FirestoreRPC.PartitionQueryRequest(protobuf: bytes)
        // gRPC framing: whatever the bytes, the reader ends in messages, a wait for more, or an error.
        var framed = GRPCMessageReader(maxMessageBytes: 4096)
        framed.append(bytes)
        while let message = try? framed.next() { _ = message }
        // A bare StructuredQuery, as a Listen target or RunQuery carries it.
        if let reader = try? ProtoReader(bytes),
            let query = try? StructuredQuery(protobuf: reader, at: "q", database: database, parent: .root)
        {
            var writer = ProtoWriter()
            query.writeProtobuf(to: &writer)
            guard let again = try? ProtoReader(writer.bytes),
                let decoded = try? StructuredQuery(protobuf: again, at: "q", database: database, parent: .root),
                decoded == query || query.hasNaN
            else { fatalError("a StructuredQuery did not survive its own encoding") }
        }
    }

    /// Decodes `bytes` as a message; when that works, its encoding must decode to an equal model.
    static func roundTrip<Message: Equatable>(
        _ bytes: [UInt8], _ decode: ([UInt8]) throws(HearthError) -> Message, _ encode: (Message) -> [UInt8]
    ) {
        guard let message = try? decode(bytes) else { return }
        guard let again = try? decode(encode(message)) else {
            fatalError("\(Message.self) decoded, but its own encoding did not")
        }
        // NaN is unequal to itself, so a message holding one is checked for decoding only.
        if again != message && !String(describing: message).contains("nan") {
            fatalError("\(Message.self) changed on a round trip")
        }
    }
}

extension StructuredQuery {
    /// Whether a NaN operand makes the query unequal to itself.
    var hasNaN: Bool { String(describing: self).contains("nan") }
}

#if FUZZING
/// The entry point libFuzzer's own objects reference.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    ProtoFuzz.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}

/// libFuzzer's driver (LLVM 11+), called from our `main` because SwiftPM points `main` at the target's own.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif

/// Runs libFuzzer (`-DFUZZING`), or replays the files given as arguments.
@main
enum ProtoFuzzMain {
    static func main() {
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOne(data, size) })
        #else
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(2)
            }
            [UInt8](data).withUnsafeBufferPointer { ProtoFuzz.run($0) }
        }
        #endif
    }
}
