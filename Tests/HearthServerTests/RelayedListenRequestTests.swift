import HearthCore
import HearthListen
import Testing

@testable import HearthServer

/// A POST relayed to the node holding its listen session arrives there with the caller the receiving node
/// authenticated, exactly: the holding node's checks (same identity) and its answer depend on it.
struct RelayedListenRequestTests {
    static let database = DatabaseName(project: "demo", database: "shop-eu")

    @Test("the caller's uid, claims with their JSON types, and admin flag survive the relay; the body is untouched")
    func callerAndBodyRoundTrip() throws {
        let claims: [String: JSONValue] = [
            "email": "a@example.com", "email_verified": true, "auth_time": .integer(1_700_000_000),
            "score": .double(1.5), "note": "two\nlines", "firebase": ["sign_in_provider": "password"],
        ]
        let body = Array(#"{"removeTarget":1}"#.utf8) + [0x0A, 0xFF]
        for auth in [AuthContext(uid: "u1", claims: claims, isAdmin: false), AuthContext.admin, nil] {
            let request = RelayedListenRequest(
                session: "node.abc", database: Self.database, caller: ListenCaller(auth: auth), body: body)
            let decoded = try RelayedListenRequest(decoding: request.encoded())
            #expect(decoded == request)
            #expect(decoded.caller.identity == ListenCaller(auth: auth).identity)
        }
    }

    @Test("the holding node's error comes back with its code and message; success as none")
    func answers() {
        let error = HearthError(.permissionDenied, "This listen session belongs to another caller.")
        #expect(RelayedListenRequest.error(inAnswer: RelayedListenRequest.answer(error)) == error)
        #expect(RelayedListenRequest.error(inAnswer: RelayedListenRequest.answer(nil)) == nil)
        #expect(throws: HearthError.self) { try RelayedListenRequest(decoding: Array("no header".utf8)) }
    }

    @Test("a session ID names its node before its first dot; one without a dot names none")
    func holder() {
        #expect(ListenEndpoint.node(holding: "n0de.rest.of-it") == "n0de")
        #expect(ListenEndpoint.node(holding: "MJ6SLRn7PodiJA-kPlZW4w") == nil)
        #expect(ListenEndpoint.node(holding: ".x") == nil)
    }
}
