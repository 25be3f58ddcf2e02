import Foundation
import HearthTestSupport
import Testing

extension Trait where Self == SharedServer {
    /// One dev-mode server for the whole suite, running the chat example's tree rules,
    /// `Examples/rules/chat.database.rules.json`, and the examples' storage rules, `Examples/rules/storage.rules`.
    static var chatServer: SharedServer {
        let rules = TestServer.packageRoot.appendingPathComponent("Examples/rules")
        return .sharedServer(arguments: [
            "--database-rules", rules.appendingPathComponent("chat.database.rules.json").path,
            "--storage-rules", rules.appendingPathComponent("storage.rules").path,
        ])
    }
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
