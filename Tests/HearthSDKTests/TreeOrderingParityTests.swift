import Foundation
import Hearth
import HearthTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The SDK orders and filters tree children exactly as the server does: the same queries over a table of awkward keys
/// and values, answered by the server (its order read back one `limitToFirst` step at a time, since a JSON object
/// carries none) and by the SDK — online, and offline from its cache, where its local view alone applies the query.
@Suite("Tree ordering: the SDK's local view equals the server's", .timeLimit(.minutes(2)))
struct TreeOrderingParityTests {
    /// Keys Firebase orders as 32-bit integers (`-1`, `2147483647`) beside look-alikes it orders as strings (`01`,
    /// `+1`, `2147483648`), and strings whose UTF-16 order differs from Swift's `<` (a fullwidth letter, an emoji).
    static let keys = [
        "1", "01", "+1", "-1", "2", "10", "-10", "2147483647", "2147483648", "-2147483649", "a", "A", "é", "z",
        "\u{FF21}", "😀", "b b",
    ]

    /// Mixed types (`false` < `true` < numbers < strings < objects), integers beyond a `Double`'s precision, a double
    /// equal to an integer (tied, then ordered by key), and strings that look like numbers.
    static var values: [Any] {
        [
            9_007_199_254_740_993, 9_007_199_254_740_992, 2, 2.0, -5, 1.5, "10", "9", "é", "😀", "\u{FF21}", true, false,
            ["x": 1], "", 0, -0.5, "a",
        ]
    }

    /// A query run on both sides, over `leaves` (children are the values) or `nested` (each child holds its value at
    /// `v`): built through the SDK, and as the REST parameters Firebase's REST API takes for it.
    struct Case: Sendable {
        var name: String
        var location: String
        var parameters: [(String, String)]
        var build: @Sendable (DatabaseReference) -> DatabaseQuery
    }

    static let cases: [Case] = [
        Case(name: "by key", location: "leaves", parameters: [("orderBy", #""$key""#)]) { $0.queryOrderedByKey() },
        Case(
            name: "by key from 1 to a", location: "leaves",
            parameters: [("orderBy", #""$key""#), ("startAt", #""1""#), ("endAt", #""a""#)]
        ) { $0.queryOrderedByKey().queryStarting(atValue: "1").queryEnding(atValue: "a") },
        Case(name: "by value", location: "leaves", parameters: [("orderBy", #""$value""#)]) {
            $0.queryOrderedByValue()
        },
        Case(
            name: "by value from 2 to 9", location: "leaves",
            parameters: [("orderBy", #""$value""#), ("startAt", "2"), ("endAt", #""9""#)]
        ) { $0.queryOrderedByValue().queryStarting(atValue: 2).queryEnding(atValue: "9") },
        Case(
            name: "by value equal to 2", location: "leaves", parameters: [("orderBy", #""$value""#), ("equalTo", "2")]
        ) { $0.queryOrderedByValue().queryEqual(toValue: 2) },
        Case(name: "by child v", location: "nested", parameters: [("orderBy", #""v""#)]) {
            $0.queryOrdered(byChild: "v")
        },
        Case(
            name: "by child v from false to 1.5", location: "nested",
            parameters: [("orderBy", #""v""#), ("startAt", "false"), ("endAt", "1.5")]
        ) { $0.queryOrdered(byChild: "v").queryStarting(atValue: false).queryEnding(atValue: 1.5) },
    ]

    /// The server's answer to `parameters` at `path`, in the server's order: grown one `limitToFirst` at a time.
    private func serverOrder(
        _ server: TestServer, path: String, _ parameters: [(String, String)]
    ) async throws -> [String] {
        let session = URLSession(
            configuration: {
                let c = URLSessionConfiguration.ephemeral
                c.urlCache = nil
                return c
            }())
        var ordered: [String] = []
        for limit in 1...(Self.keys.count + 1) {
            var components = try #require(
                URLComponents(
                    url: server.baseURL.appendingPathComponent("\(path).json"), resolvingAgainstBaseURL: false))
            components.queryItems = (parameters + [("limitToFirst", String(limit))]).map {
                URLQueryItem(name: $0.0, value: $0.1)
            }
            let (data, _) = try await session.data(from: try #require(components.url))
            // A window whose keys are all array indexes comes back as a JSON array, as Firebase returns it.
            let answer = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            let keys: [String]
            if let array = answer as? [Any] {
                keys = array.indices.filter { !(array[$0] is NSNull) }.map(String.init)
            } else {
                keys = (answer as? [String: Any]).map { Array($0.keys) } ?? []
            }
            let added = Set(keys).subtracting(ordered)
            guard added.count == 1, let key = added.first else {
                #expect(added.isEmpty, "one more child per step")
                break
            }
            ordered.append(key)
        }
        return ordered
    }

    @Test func theSameQueriesGiveTheSameChildrenInTheSameOrder() async throws {
        var server = try await TestServer.start()
        defer { server.stop() }
        let root = Database.database(app: server.app()).reference().child(unique("parity"))
        var leaves: [String: Any] = [:]
        var nested: [String: Any] = [:]
        for (key, value) in zip(Self.keys, Self.values) {
            leaves[key] = value
            nested[key] = ["v": value]
        }
        try await root.setValue(["leaves": leaves, "nested": nested])
        _ = try await root.getData()  // caches the location, for the offline answers

        var expected: [String: [String]] = [:]
        for check in Self.cases {
            let fromServer = try await serverOrder(
                server, path: "\(root.key ?? "")/\(check.location)", check.parameters)
            expected[check.name] = fromServer
            let online = try await check.build(root.child(check.location)).getData()
            #expect(online.childKeys == fromServer, "online, \(check.name)")
        }
        #expect(expected["by key"]?.count == Self.keys.count)
        #expect(expected["by value equal to 2"] == ["-1", "+1"], "2 and 2.0 are equal, then ordered by key")

        await server.halt()
        for check in Self.cases {
            let offline = try await check.build(root.child(check.location)).getData()
            #expect(offline.childKeys == expected[check.name], "offline, from the cache, \(check.name)")
        }
        server = try await TestServer.start(directory: server.directory, port: server.port)
    }
}

extension DataSnapshot {
    fileprivate var childKeys: [String] { children.allObjects.compactMap { ($0 as? DataSnapshot)?.key } }
}
