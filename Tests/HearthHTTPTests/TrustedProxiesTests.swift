import Testing

@testable import HearthHTTP

/// Which client a request behind proxies comes from: what every per-address limit counts.
@Suite struct TrustedProxiesTests {
    private let nginx = try! TrustedProxies(parsing: "127.0.0.1, 10.0.0.0/8, fd00::/8")

    private func client(_ peer: String, _ fields: String...) -> String {
        nginx.clientAddress(peer: peer, forwardedFor: fields)
    }

    @Test func theRightmostUntrustedAddressIsTheClient() {
        // nginx appends the address it saw; whatever the client wrote itself is to the left of it.
        #expect(client("127.0.0.1", "203.0.113.7") == "203.0.113.7")
        #expect(client("127.0.0.1", "198.51.100.1, 203.0.113.7") == "203.0.113.7")
        // Two proxies, both trusted: the address the outer one saw.
        #expect(client("127.0.0.1", "198.51.100.1, 203.0.113.7, 10.1.2.3") == "203.0.113.7")
        // Several header fields read as one list, in order.
        #expect(client("127.0.0.1", "198.51.100.1", "203.0.113.7") == "203.0.113.7")
        // Every address trusted: the leftmost, the farthest the chain goes.
        #expect(client("127.0.0.1", "10.9.9.9, 10.1.1.1") == "10.9.9.9")
    }

    @Test func anUntrustedPeerIsTheClientWhateverItSends() {
        #expect(client("192.0.2.50", "203.0.113.7") == "192.0.2.50")
        #expect(TrustedProxies.none.clientAddress(peer: "127.0.0.1", forwardedFor: ["203.0.113.7"]) == "127.0.0.1")
        #expect(client("127.0.0.1") == "127.0.0.1")
    }

    @Test(arguments: ["", "not-an-address", "203.0.113.7,", ",203.0.113.7 , ", "203.0.113.7, 300.1.1.1", "1.2.3.4:x"])
    func aMalformedEntryBeforeTheClientGivesThePeer(field: String) {
        #expect(client("127.0.0.1", field) == "127.0.0.1")
    }

    @Test func whatTheClientWroteLeftOfItsProxyIsNeverRead() {
        // Junk or a spoofed chain the client sent stays to the left of the address nginx appended.
        #expect(client("127.0.0.1", "junk, 203.0.113.7") == "203.0.113.7")
        #expect(client("127.0.0.1", "10.0.0.1, 203.0.113.7") == "203.0.113.7")
    }

    @Test func addressesAreReadInEveryCommonSpellingAndWrittenCanonically() {
        #expect(client("127.0.0.1", "2001:DB8:0::1") == "2001:db8::1")
        #expect(client("127.0.0.1", "[2001:db8::1]:4711") == "2001:db8::1")
        #expect(client("127.0.0.1", "[2001:db8::1]") == "2001:db8::1")
        #expect(client("127.0.0.1", "203.0.113.7:4711") == "203.0.113.7")
        #expect(client("127.0.0.1", " 203.0.113.7\t") == "203.0.113.7")
        // An IPv4-mapped address is that IPv4 client, and matches the IPv4 ranges.
        #expect(client("127.0.0.1", "::ffff:203.0.113.7") == "203.0.113.7")
        #expect(client("127.0.0.1", "203.0.113.7, ::ffff:10.0.0.1") == "203.0.113.7")
        #expect(client("::ffff:127.0.0.1", "203.0.113.7") == "203.0.113.7")
        #expect(client("fd12::1", "203.0.113.7") == "203.0.113.7")
    }

    @Test func rangesMatchTheirPrefixOnly() throws {
        let ranges = try TrustedProxies(parsing: "192.168.4.0/22,2001:db8:8000::/33,0.0.0.0/0")
        #expect(ranges.contains("192.168.7.255"))
        #expect(ranges.contains("8.8.8.8"))
        let narrow = try TrustedProxies(parsing: "192.168.4.0/22,2001:db8:8000::/33")
        #expect(narrow.contains("192.168.4.0"))
        #expect(narrow.contains("192.168.7.255"))
        #expect(!narrow.contains("192.168.8.0"))
        #expect(!narrow.contains("192.168.3.255"))
        #expect(narrow.contains("2001:db8:ffff::1"))
        #expect(!narrow.contains("2001:db8:7fff::1"))
        #expect(narrow.contains("::ffff:192.168.4.1"))
    }

    @Test(arguments: ["localhost", "10.0.0.0/33", "::/129", "10.0.0.1/", "10.0.0.1/-1", "1.2.3", "10.0.0.0/8/8"])
    func invalidEntriesAreRefused(text: String) {
        #expect(throws: TrustedProxies.InvalidEntry.self) { try TrustedProxies(parsing: text) }
    }

    @Test func anEmptyListTrustsNoOne() throws {
        #expect(try TrustedProxies(parsing: "").isEmpty)
        #expect(try TrustedProxies(parsing: " , ").isEmpty)
        #expect(try !TrustedProxies(parsing: "::1").isEmpty)
    }

    @Test func theServerGivesRequestsTheClientOfATrustedProxy() throws {
        let server = try startServer(trustedProxies: nginx) { request in
            .response(HTTPResponse(status: 200, body: Array(request.remoteAddress.utf8)))
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        #expect(try client.request("GET", "/", headers: ["X-Forwarded-For: 203.0.113.7"]).text == "203.0.113.7")
        #expect(try client.request("GET", "/", headers: ["X-Forwarded-For: nonsense"]).text == "127.0.0.1")
        #expect(try client.request("GET", "/").text == "127.0.0.1")

        let untrusting = try startServer { request in
            .response(HTTPResponse(status: 200, body: Array(request.remoteAddress.utf8)))
        }
        defer { untrusting.stop() }
        let other = try RawClient(port: untrusting.port)
        #expect(try other.request("GET", "/", headers: ["X-Forwarded-For: 203.0.113.7"]).text == "127.0.0.1")
    }

    @Test func onlyATrustedProxySaysTheClientCameOverHTTPS() {
        #expect(nginx.forwardedHTTPS(peer: "127.0.0.1", forwardedProto: ["https"]))
        #expect(nginx.forwardedHTTPS(peer: "10.1.2.3", forwardedProto: ["HTTPS"]))
        #expect(!nginx.forwardedHTTPS(peer: "127.0.0.1", forwardedProto: ["http"]))
        #expect(!nginx.forwardedHTTPS(peer: "127.0.0.1", forwardedProto: []))
        // The rightmost entry is the nearest proxy's; what the client wrote before it does not count.
        #expect(!nginx.forwardedHTTPS(peer: "127.0.0.1", forwardedProto: ["https, http"]))
        #expect(!nginx.forwardedHTTPS(peer: "127.0.0.1", forwardedProto: ["https", "http"]))
        #expect(nginx.forwardedHTTPS(peer: "127.0.0.1", forwardedProto: ["http, https"]))
        // From a peer that is no trusted proxy the header is the client's own claim.
        #expect(!nginx.forwardedHTTPS(peer: "192.0.2.50", forwardedProto: ["https"]))
        #expect(!TrustedProxies.none.forwardedHTTPS(peer: "127.0.0.1", forwardedProto: ["https"]))
    }

    @Test func theServerBelievesXForwardedProtoOnlyFromATrustedProxy() throws {
        let answer: @Sendable (HTTPRequest) -> HTTPReply = { request in
            .response(HTTPResponse(status: 200, body: Array((request.isForwardedHTTPS ? "https" : "http").utf8)))
        }
        let trusting = try startServer(trustedProxies: nginx, answer)
        defer { trusting.stop() }
        let client = try RawClient(port: trusting.port)
        #expect(try client.request("GET", "/", headers: ["X-Forwarded-Proto: https"]).text == "https")
        #expect(try client.request("GET", "/").text == "http")

        let untrusting = try startServer(answer)
        defer { untrusting.stop() }
        let other = try RawClient(port: untrusting.port)
        #expect(try other.request("GET", "/", headers: ["X-Forwarded-Proto: https"]).text == "http")
    }
}
