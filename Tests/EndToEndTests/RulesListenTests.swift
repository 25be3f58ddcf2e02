import Foundation
import HearthCore
import HearthTesting
import Testing

/// Listeners under `Examples/rules/todos.rules`: user A may listen to her own todos and to queries pinned to her
/// uid; targets on B's data end with `REMOVE … PERMISSION_DENIED`.
@Suite("Security rules on listeners", .timeLimit(.minutes(3)))
struct RulesListenTests {
    @Test("A listens to her own todos; targets on B's are removed with PERMISSION_DENIED")
    func listeners() async throws {
        try await RulesDocumentTests.withRulesServer { server, a, b in
            let client = server.client
            for (user, id) in [(a, "la"), (b, "lb")] {
                try expectOK(
                    try await client.request(
                        "POST", FS.path("todos"), query: [("documentId", id)], json: RulesDocumentTests.todo(user.uid),
                        headers: user.headers))
            }
            let authorization = try #require(a.headers["Authorization"])
            let stream = try ListenStream.open(server, headers: ["Authorization: \(authorization)"])
            func add(_ body: String) async throws {
                let result = try await stream.post(body, headers: a.headers)
                #expect(result.status == 200, "\(result)")
            }
            try await add(#"{"addTarget":{"targetId":1,"documents":{"documents":["\#(FS.name("todos/la"))"]}}}"#)
            let first = try await stream.nextBatch()
            #expect(first.contains("change todos/la [1]"), "\(first)")
            #expect(first.contains("CURRENT 1"), "\(first)")

            try await add(#"{"addTarget":{"targetId":2,"documents":{"documents":["\#(FS.name("todos/lb"))"]}}}"#)
            let second = try await stream.nextBatch()
            #expect(second.contains("REMOVE 2 PERMISSION_DENIED"), "\(second)")
            #expect(!second.contains { $0.contains("todos/lb") }, "\(second)")

            let parent = "projects/demo/databases/(default)/documents"
            let mine = RulesDocumentTests.query(RulesDocumentTests.ownerFilter(a.uid))
                .replacingOccurrences(of: #"{"structuredQuery":"#, with: "").dropLast()
            try await add(#"{"addTarget":{"targetId":3,"query":{"parent":"\#(parent)","structuredQuery":\#(mine)}}}"#)
            let third = try await stream.nextBatch()
            #expect(third.contains("CURRENT 3"), "\(third)")
            #expect(!third.contains { $0.contains("todos/lb") }, "\(third)")

            let theirs = RulesDocumentTests.query(RulesDocumentTests.ownerFilter(b.uid))
                .replacingOccurrences(of: #"{"structuredQuery":"#, with: "").dropLast()
            try await add(#"{"addTarget":{"targetId":4,"query":{"parent":"\#(parent)","structuredQuery":\#(theirs)}}}"#)
            let fourth = try await stream.nextBatch()
            #expect(fourth.contains("REMOVE 4 PERMISSION_DENIED"), "\(fourth)")
        }
    }
}
