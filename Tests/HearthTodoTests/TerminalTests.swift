import Foundation
import HearthTestSupport
import Synchronization
import Testing

/// The `hearth-todo` binary driven through pipes as a person would type: each command waits for the screen it
/// should produce.
@Suite("hearth-todo terminal UI against a real server")
struct TerminalTests {
    /// What the program printed so far, collected from its standard output.
    final class Output: Sendable {
        private let text = Mutex("")
        func append(_ data: Data) { text.withLock { $0 += String(decoding: data, as: UTF8.self) } }
        var all: String { text.withLock { $0 } }
    }

    static var binary: URL {
        if let server = ProcessInfo.processInfo.environment["HEARTH_BINARY"], !server.isEmpty {
            return URL(fileURLWithPath: server).deletingLastPathComponent().appendingPathComponent("hearth-todo")
        }
        return TestServer.packageRoot.appendingPathComponent(".build/debug/hearth-todo")
    }

    @Test("add, edit and cancel, complete and delete by typed commands")
    func commands() async throws {
        try await withServer(arguments: TodoListModelTests.arguments) { server in
            let process = Process()
            process.executableURL = Self.binary
            process.arguments = [
                "--server", server.baseURL.absoluteString, "--email", uniqueEmail(), "--password", "correct horse",
                "--storage", server.directory.appendingPathComponent("terminal").path,
            ]
            let input = Pipe()
            let output = Pipe()
            let printed = Output()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            output.fileHandleForReading.readabilityHandler = { handle in printed.append(handle.availableData) }
            let exited = AsyncStream<Int32>.makeStream()
            process.terminationHandler = { process in
                exited.continuation.yield(process.terminationStatus)
                exited.continuation.finish()
            }
            try process.run()
            defer { if process.isRunning { process.terminate() } }

            /// Types `line`, then waits until the output printed after it contains `expected`.
            func type(_ line: String, until expected: String) async throws -> String {
                let start = printed.all.count
                input.fileHandleForWriting.write(Data("\(line)\n".utf8))
                let shown = await eventually { String(printed.all.dropFirst(start)).contains(expected) }
                #expect(shown, "after \"\(line)\": no \"\(expected)\" in\n\(printed.all.suffix(1500))")
                return String(printed.all.dropFirst(start))
            }

            #expect(await eventually { printed.all.contains("0 Todo Items") }, "\(printed.all)")
            _ = try await type(
                "a Buy milk | semi-skimmed | 4 | 2026-12-01", until: "[ ] ★★★★☆  2026/12/01  Buy milk — semi-skimmed")
            _ = try await type("e 1", until: "Editing")
            _ = try await type("t Oat milk", until: "title: Oat milk")
            let afterCancel = try await type("cancel", until: "edit cancelled")
            #expect(afterCancel.contains("Buy milk — semi-skimmed") && !afterCancel.contains("Oat milk"))
            _ = try await type("s 9", until: "unknown command")  // outside the editor, `s` is no command
            _ = try await type("c 1", until: "[x] ★★★★☆")
            let notes = server.directory.appendingPathComponent("shopping notes.txt")
            try Data("two litres\n".utf8).write(to: notes)
            _ = try await type("f 1 \(notes.path)x", until: "No file to read at \(notes.path)x")
            // The live list may redraw before the command's own screen: wait for the latter, which shows both.
            let attached = try await type("f 1 \(notes.path)", until: "! attached shopping notes.txt to \"Buy milk\"")
            #expect(attached.contains("attachment: shopping notes.txt (text/plain)"))
            _ = try await type("x 7", until: "no todo numbered \"7\"")
            _ = try await type("x 1", until: "0 Todo Items")
            input.fileHandleForWriting.write(Data("q\n".utf8))
            var statuses = exited.stream.makeAsyncIterator()
            #expect(await statuses.next() == 0)
        }
    }
}
