import Foundation
import HearthTestSupport
import Testing

/// A real `hearth serve --dev` (the shared test harness) running the chat example's tree rules,
/// `Examples/rules/chat.database.rules.json`.
typealias ChatServer = TestServer

/// One server shared by the tests of a suite (each test signs up its own users, so they never collide).
struct SharedChatServer: SuiteTrait, TestScoping {
    @TaskLocal static var current: ChatServer?

    var isRecursive: Bool { false }

    static var server: ChatServer {
        get throws {
            guard let current else { throw HarnessError("No shared server: add .chatServer to the suite") }
            return current
        }
    }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        if Self.current != nil {
            try await function()
            return
        }
        let rules = TestServer.packageRoot.appendingPathComponent("Examples/rules/chat.database.rules.json")
        let server = try await TestServer.start(arguments: ["--database-rules", rules.path])
        do {
            try await Self.$current.withValue(server) { try await function() }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

extension Trait where Self == SharedChatServer {
    /// One dev-mode server with the chat rules for the whole suite.
    static var chatServer: SharedChatServer { SharedChatServer() }
}

/// An email address unique to this run, starting with `label`.
func uniqueEmail(_ label: String) -> String {
    "\(label)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
}

/// Waits (at most 10 s, polling without blocking a thread) until `condition` holds on the main actor; the test's
/// own `#expect` then reports the state if it never did.
@MainActor
func waitUntil(_ condition: @MainActor () -> Bool) async {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
}
