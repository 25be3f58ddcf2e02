import Foundation
import HearthCore
import HearthTesting
import Testing

/// Streaming (`Accept: text/event-stream`) over real connections: the first `put`, then `put`/`patch` events for
/// each committed write, in commit order, each once.
@Suite("Tree streaming", .timeLimit(.minutes(3)))
struct TreeStreamTests {
    /// Keep-alives and credential re-checks every 0.3 s, so the tests see them without waiting 30 s.
    static func options() -> HearthProcess.Options {
        var options = HearthProcess.Options()
        options.environment["HEARTH_TREE_KEEPALIVE_SECONDS"] = "0.3"
        return options
    }

    @Test("first a put of the whole value at /, then puts and patches relative to the location")
    func events() async throws {
        try await withHearth(Self.options()) { server in
            let client = server.client
            try await client.treePut("room", #"{"title":"Hi","messages":{"m1":{"text":"a"}}}"#)
            let stream = try server.stream("room")
            let first = try await stream.dataEvents(1)
            #expect(stream.status == 200)
            #expect(stream.headers["content-type"]?.hasPrefix("text/event-stream") == true)
            #expect(first[0].event == "put" && first[0].path == "/")
            #expect(first[0].payload == Tree.json(#"{"title":"Hi","messages":{"m1":{"text":"a"}}}"#))

            try await client.treePut("room/messages/m2", #"{"text":"b"}"#)
            _ = try expectOK(await client.tree("PATCH", "room", #"{"title":"Hey","messages/m1/text":"A"}"#))
            try await client.treePut("room/title", "null")
            _ = try expectOK(await client.tree("PATCH", "", #"{"room/x":1,"elsewhere/y":2}"#))
            try await client.treePut("elsewhere", #""ignored""#)
            try await client.treePut("", #"{"room":{"fresh":true}}"#)
            let events = try await stream.dataEvents(5, after: 1)
            #expect(events[0] == StreamEvent(event: "put", data: #"{"path":"/messages/m2","data":{"text":"b"}}"#))
            #expect(
                events[1]
                    == StreamEvent(event: "patch", data: #"{"path":"/","data":{"messages/m1/text":"A","title":"Hey"}}"#)
            )
            #expect(events[2] == StreamEvent(event: "put", data: #"{"path":"/title","data":null}"#))
            #expect(events[3] == StreamEvent(event: "patch", data: #"{"path":"/","data":{"x":1}}"#))
            #expect(events[4] == StreamEvent(event: "put", data: #"{"path":"/","data":{"fresh":true}}"#))
            stream.close()
        }
    }

    @Test("a location larger than a stream carries is refused with cancel, not a silent cut; smaller ones still stream")
    func tooLargeLocation() async throws {
        var options = Self.options()
        options.extraArguments = ["--tree-stream-buffer", "4096"]
        try await withHearth(options) { server in
            let client = server.client
            let text = String(repeating: "x", count: 3000)
            try await client.treePut("big", #"{"a":"\#(text)","b":"\#(text)"}"#)
            let big = try server.stream("big")
            let cancelled = try await big.events(1) { $0.event != "keep-alive" }
            #expect(big.status == 200)
            #expect(cancelled.map(\.event) == ["cancel"], "\(big.received)")
            try await big.waitForEnd()
            #expect(server.stderr.contains("tree stream refused"))
            // A location within the buffer streams as before.
            let small = try server.stream("big/a")
            let first = try await small.dataEvents(1)
            #expect(first[0].payload == .string(text))
        }
    }

    @Test("a stream on a missing location starts with null; a multi-path PATCH arrives as one patch")
    func missingThenPatch() async throws {
        try await withHearth(Self.options()) { server in
            let stream = try server.stream("a/b")
            #expect(try await stream.dataEvents(1)[0] == StreamEvent(event: "put", data: #"{"path":"/","data":null}"#))
            _ = try expectOK(await server.client.tree("PATCH", "a", #"{"b/c":1,"b/d":{"e":2},"z":3}"#))
            let events = try await stream.dataEvents(1, after: 1)
            #expect(events[0] == StreamEvent(event: "patch", data: #"{"path":"/","data":{"c":1,"d":{"e":2}}}"#))
            stream.close()
        }
    }

    @Test("changes stream in commit order, each write once, to many listeners")
    func orderAndOnce() async throws {
        try await withHearth(Self.options()) { server in
            let streams = try (0..<5).map { _ in try server.stream("counter") }
            for stream in streams { _ = try await stream.dataEvents(1) }
            let writes = 60
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for index in stride(from: writer, to: writes, by: 4) {
                            _ = try expectOK(await server.client.tree("PUT", "counter/w\(index)", "\(index)"))
                        }
                    }
                }
                try await group.waitForAll()
            }
            var orders: [[String]] = []
            for stream in streams {
                let events = try await stream.dataEvents(writes, after: 1)
                #expect(events.allSatisfy { $0.event == "put" })
                orders.append(events.compactMap(\.path))
                #expect(Set(events.compactMap(\.path)).count == writes, "each write exactly once")
            }
            #expect(orders.allSatisfy { $0 == orders[0] }, "every listener sees the same commit order")
            // Nothing more arrives: no write is delivered twice.
            try await server.client.treePut("counter/last", "true")
            for stream in streams {
                let tail = try await stream.dataEvents(1, after: writes + 1)
                #expect(tail[0].path == "/last")
                stream.close()
            }
        }
    }

    @Test("a streamed query keeps only its window: entering children are put, leaving ones put to null")
    func queryWindow() async throws {
        try await withHearth(Self.options()) { server in
            let client = server.client
            try await client.treePut("scores", #"{"a":{"s":10},"b":{"s":20},"c":{"s":30}}"#)
            let stream = try server.stream("scores", query: [("orderBy", #""s""#), ("limitToLast", "2")])
            #expect(try await stream.dataEvents(1)[0].payload == Tree.json(#"{"b":{"s":20},"c":{"s":30}}"#))
            try await client.treePut("scores/d/s", "25")
            try await client.treePut("scores/a/s", "11")
            try await client.treePut("scores/c/s", "31")
            let events = try await stream.dataEvents(2, after: 1)
            #expect(events[0] == StreamEvent(event: "patch", data: #"{"path":"/","data":{"b":null,"d":{"s":25}}}"#))
            #expect(events[1] == StreamEvent(event: "put", data: #"{"path":"/c","data":{"s":31}}"#))
            let snapshot = try await client.treeValue("scores", query: [("orderBy", #""s""#), ("limitToLast", "2")])
            #expect(snapshot == Tree.json(#"{"c":{"s":31},"d":{"s":25}}"#))
            stream.close()
        }
    }

    @Test("idle streams get keep-alive events; format=export streams carry priorities")
    func keepAliveAndExport() async throws {
        try await withHearth(Self.options()) { server in
            try await server.client.treePut("p", #"{".priority":1,"v":2}"#)
            let stream = try server.stream("p", query: [("format", "export")])
            #expect(try await stream.dataEvents(1)[0].payload == Tree.json(#"{".priority":1,"v":2}"#))
            let alive = try await stream.events(2) { $0.event == "keep-alive" }
            #expect(alive.allSatisfy { $0.data == "null" })
            stream.close()
        }
    }

    @Test("auth_revoked when the stream's credential stops being valid, then the stream ends")
    func authRevoked() async throws {
        try await withHearth(Self.options()) { server in
            let client = server.client
            let user = try await client.signUp(Accounts.uniqueEmail("sse"))
            let token = try #require(user["idToken"]?.stringValue)
            let stream = try server.stream("private", query: [("auth", token)])
            _ = try await stream.dataEvents(1)
            let admin = try server.stream("private", headers: ["Authorization": "Bearer owner"])
            _ = try await admin.dataEvents(1)
            _ = try expectOK(await client.admin("update", ["localId": user["localId"] ?? "", "disableUser": true]))
            let revoked = try await stream.events(1) { $0.event == "auth_revoked" }
            #expect(revoked[0].data == "credential is no longer valid")
            try await stream.waitForEnd()
            // The admin's stream is unaffected.
            try await client.treePut("private/x", "1")
            #expect(try await admin.dataEvents(1, after: 1)[0].path == "/x")
            admin.close()
        }
    }

    @Test("auth_revoked when the stream's ID token expires (--id-token-lifetime), before any later change")
    func tokenExpiry() async throws {
        var options = Self.options()
        // Long enough that a loaded machine still opens the stream before the token expires.
        options.environment["HEARTH_ID_TOKEN_LIFETIME"] = "4"
        try await withHearth(options) { server in
            let client = server.client
            let user = try await client.signUp(Accounts.uniqueEmail("expiry"))
            // The token was issued before this instant, so it expires at most 4 s (plus rounding to whole seconds) after.
            let issued = ContinuousClock.now
            let token = try #require(user["idToken"]?.stringValue)
            #expect(user["expiresIn"]?.stringValue == "4")
            let stream = try server.stream("open", query: [("auth", token)])
            _ = try await stream.dataEvents(1)
            // Past the token's `exp`, a change the stream would see must not reach it.
            try await Task.sleep(until: issued + .milliseconds(5_100))
            try await client.treePut("open/x", "1")
            let revoked = try await stream.events(1) { $0.event == "auth_revoked" }
            #expect(revoked[0].data == "credential is no longer valid")
            try await stream.waitForEnd()
            // Only the first snapshot was delivered: the write after expiry never reached the stream.
            #expect(stream.received.filter { $0.event == "put" || $0.event == "patch" }.count == 1)
        }
    }

    @Test("a stream with a bad credential is refused with 401; a bad query with 400")
    func refused() async throws {
        try await withHearth(Self.options()) { server in
            let bad = try server.stream("x", query: [("auth", "garbage")])
            try await bad.waitForEnd()
            #expect(bad.status == 401)
            let query = try server.stream("x", query: [("limitToFirst", "1")])
            try await query.waitForEnd()
            #expect(query.status == 400)
        }
    }

    @Test("a client that goes away is dropped; the server keeps serving the others")
    func disconnects() async throws {
        try await withHearth(Self.options()) { server in
            let gone = try server.stream("d")
            let staying = try server.stream("d")
            _ = try await gone.dataEvents(1)
            _ = try await staying.dataEvents(1)
            gone.close()
            for index in 0..<20 { try await server.client.treePut("d/\(index)", "\(index)") }
            #expect(try await staying.dataEvents(20, after: 1).count == 20)
            staying.close()
        }
    }
}

/// Streams opened while writes are in flight: each stream's first `put` plus its later events must rebuild exactly
/// the value the server ends with — no change lost between snapshot and feed, none applied twice.
@Suite("Tree streaming consistency", .timeLimit(.minutes(3)))
struct TreeStreamConsistencyTests {
    @Test("events applied to the first put rebuild the final value, for streams opened mid-stream of writes")
    func rebuildsTheFinalValue() async throws {
        try await withHearth(TreeStreamTests.options()) { server in
            let client = server.client
            let writing = Task {
                for step in 0..<150 {
                    let key = "k\(step % 7)"
                    switch step % 5 {
                    case 0: _ = try await client.tree("PATCH", "live", #"{"\#(key)/n":\#(step),"other/x":\#(step)}"#)
                    case 1: _ = try await client.tree("DELETE", "live/\(key)")
                    case 2: _ = try await client.tree("PUT", "live/\(key)/deep/v", "\(step)")
                    case 3: _ = try await client.tree("PUT", "", #"{"live":{"reset":\#(step)},"elsewhere":1}"#)
                    default: _ = try await client.tree("PUT", "live/\(key)", #"{"s":"v\#(step)"}"#)
                    }
                }
            }
            var streams: [EventStreamClient] = []
            for _ in 0..<6 {
                streams.append(try server.stream("live"))
                try await Task.sleep(for: .milliseconds(20))
            }
            try await writing.value
            let final = try await client.treeValue("live")
            for stream in streams {
                // The last write's event is in flight at most briefly; wait until the rebuilt value matches or time runs out.
                let deadline = ContinuousClock.now + .seconds(20)
                var rebuilt: JSONValue?
                while true {
                    rebuilt = Self.rebuild(stream.received.filter { $0.event == "put" || $0.event == "patch" })
                    if rebuilt ?? .null == final || ContinuousClock.now > deadline { break }
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(rebuilt ?? .null == final, "events: \(stream.received.count)")
                stream.close()
            }
        }
    }

    /// Applies SSE events, starting from the first `put`, to a JSON value as a client does.
    static func rebuild(_ events: [StreamEvent]) -> JSONValue? {
        var value: JSONValue?
        for event in events {
            guard let path = event.path, let data = event.payload else { continue }
            let segments = path.split(separator: "/").map(String.init)
            if event.event == "put" {
                value = setting(value, segments[...], data)
            } else {
                for (key, child) in data.objectValue ?? [:] {
                    value = setting(value, (segments + key.split(separator: "/").map(String.init))[...], child)
                }
            }
        }
        return value
    }

    private static func setting(_ value: JSONValue?, _ path: ArraySlice<String>, _ new: JSONValue) -> JSONValue? {
        guard let key = path.first else { return new == .null ? nil : new }
        var members = value?.objectValue ?? [:]
        members[key] = setting(members[key], path.dropFirst(), new)
        return members.isEmpty ? nil : .object(members)
    }
}
