import Foundation
import HearthCore
import HearthRules

/// Fuzzes the rules parsers and evaluator: every input is compiled as rules (either language) and, when it
/// compiles, judged against a fixed request; nothing may crash, hang or exhaust the stack.
///
/// Built normally, this is a replayer: `hearth-rules-fuzz FILE…` runs each file once (a crash corpus, CI). Built
/// with `swift build --product hearth-rules-fuzz -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING` on Linux, libFuzzer
/// drives ``RulesFuzz/run(_:)``.
enum RulesFuzz {
    static let auth = AuthContext(uid: "alice", claims: ["email": .string("a@example.com")], isAdmin: false)

    static func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let rules = try? RulesFile(source: text) else { return }
        switch rules {
        case .firestore(let ruleset):
            for method in FirestoreMethod.allCases {
                let request = FirestoreRequest(
                    method: method, path: ResourcePath(segments: ["users", "alice"]), auth: auth,
                    time: Timestamp(seconds: 1_700_000_000, nanos: 0), existingData: ["owner": .string("alice")],
                    newData: method == .create || method == .update ? ["owner": .string("alice")] : nil)
                _ = ruleset.authorize(request)
            }
        case .storage(let ruleset):
            for method in FirestoreMethod.allCases {
                let object = StorageRulesObject(
                    name: "users/alice/a.png", bucket: "demo.appspot.com", size: 10, contentType: "image/png",
                    metadata: ["owner": "alice"])
                let request = StorageRequest(
                    method: method, bucket: "demo.appspot.com", name: "users/alice/a.png", auth: auth,
                    time: Timestamp(seconds: 1_700_000_000, nanos: 0), existing: object,
                    incoming: method == .create || method == .update ? object : nil)
                _ = ruleset.authorize(request)
            }
        case .database(let ruleset):
            let tree = JSONTreeReader(root: .object(["users": .object(["alice": .object(["name": .string("A")])])]))
            _ = ruleset.authorizeRead(path: ["users", "alice"], auth: auth, data: tree, now: 0)
            let after = OverlayTreeReader(base: tree, writes: [(["users", "alice", "name"], .string("B"))])
            _ = ruleset.authorizeWrite(
                path: ["users", "alice", "name"], auth: auth, before: tree, after: after, now: 0)
        }
    }
}

#if FUZZING
/// The entry point libFuzzer's own objects reference.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    RulesFuzz.run(UnsafeBufferPointer(start: data, count: size))
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
enum RulesFuzzMain {
    static func main() {
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(
            LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzOne(data, size) })
        #else
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(2)
            }
            [UInt8](data).withUnsafeBufferPointer { RulesFuzz.run($0) }
        }
        #endif
    }
}
