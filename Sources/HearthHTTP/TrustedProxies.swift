import Foundation

/// The proxies (nginx in front of several nodes) whose `X-Forwarded-For` and `X-Forwarded-Proto` Hearth believes, and
/// the rules that turn a request's TCP peer and those headers into the client address every per-address limit counts
/// and into whether the client reached the proxy over HTTPS (``resolve(_:peer:)`` applies both to a request).
///
/// Only `X-Forwarded-For` is read, not `Forwarded` (RFC 7239): nginx, HAProxy and the cloud load balancers set the
/// former, and a header the proxy does not overwrite is the client's to write. Were both read, a client behind a
/// proxy that only sets `X-Forwarded-For` could choose its address with a `Forwarded` the proxy passes on untouched.
public struct TrustedProxies: Sendable, Equatable {
    /// One range: an address's bytes (4 for IPv4, 16 for IPv6) and how many leading bits an address must share.
    struct Range: Sendable, Equatable {
        let bytes: [UInt8]
        let prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var bits = prefix
            for index in bytes.indices where bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                guard address[index] & mask == bytes[index] & mask else { return false }
                bits -= 8
            }
            return true
        }
    }

    /// An entry of the list that is neither an address nor a CIDR range.
    public struct InvalidEntry: Error, Sendable {
        /// The entry as written.
        public let entry: String
    }

    let ranges: [Range]

    /// No proxy is trusted: the client address is always the TCP peer, whatever headers say (the safe default).
    public static let none = TrustedProxies(ranges: [])

    private init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// Whether no proxy is trusted.
    public var isEmpty: Bool { ranges.isEmpty }

    /// Parses a comma-separated list of IPv4 and IPv6 addresses and CIDR ranges (`127.0.0.1, 10.0.0.0/8, fd00::/8`);
    /// an empty list trusts no proxy.
    /// - Throws: `InvalidEntry` naming the first entry that is neither.
    public init(parsing text: String) throws(InvalidEntry) {
        var ranges: [Range] = []
        for item in text.split(separator: ",") {
            let entry = item.trimmingCharacters(in: .whitespaces)
            if entry.isEmpty { continue }
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = Self.address(parts[0]) else { throw InvalidEntry(entry: entry) }
            var prefix = bytes.count * 8
            if parts.count == 2 {
                guard parts[1].allSatisfy(\.isASCII), let given = Int(parts[1]), (0...prefix).contains(given) else {
                    throw InvalidEntry(entry: entry)
                }
                prefix = given
            }
            ranges.append(Range(bytes: bytes, prefix: prefix))
        }
        self.ranges = ranges
    }

    /// Whether `address` (as text) is one of the trusted proxies.
    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.address(Substring(address)) else { return false }
        return contains(bytes)
    }

    private func contains(_ bytes: [UInt8]) -> Bool {
        ranges.contains { $0.contains(bytes) }
    }

    /// The client a request comes from: `peer` (the TCP peer's address) unless it is a trusted proxy; then the
    /// rightmost address of `forwardedFor` (every `X-Forwarded-For` field, in order) that is not itself a trusted
    /// proxy, or the leftmost when all are. Each proxy appends the address it saw, so everything right of that
    /// address was written by trusted proxies, and everything left of it by the client, who may write anything.
    ///
    /// An entry that is not an address, met before an untrusted one, gives `peer`: the proxy that wrote it is not
    /// believable past that point. The result is written canonically (`2001:db8::1`, never `2001:DB8:0::1`), so one
    /// client cannot spread its attempts over many spellings of its address.
    public func clientAddress(peer: String, forwardedFor: [String]) -> String {
        guard !ranges.isEmpty, !forwardedFor.isEmpty, contains(peer) else { return peer }
        var leftmost: [UInt8]?
        for field in forwardedFor.reversed() {
            for entry in field.split(separator: ",", omittingEmptySubsequences: false).reversed() {
                guard let bytes = Self.forwardedAddress(entry) else { return peer }
                if !contains(bytes) { return Self.text(bytes) }
                leftmost = bytes
            }
        }
        return leftmost.map(Self.text) ?? peer
    }

    /// Whether a request from `peer` whose `X-Forwarded-Proto` fields are `forwardedProto` (in order) reached its
    /// proxy over HTTPS: only when `peer` is a trusted proxy and the rightmost entry, the one the nearest proxy wrote
    /// (nginx's `proxy_set_header` replaces what the client sent; balancers that append put theirs last), is
    /// `https`. From any other peer the header is the client's own claim, and believing it would let a plain-HTTP
    /// client be treated as one on TLS.
    public func forwardedHTTPS(peer: String, forwardedProto: [String]) -> Bool {
        guard !ranges.isEmpty, contains(peer), let field = forwardedProto.last,
            let entry = field.split(separator: ",", omittingEmptySubsequences: false).last
        else { return false }
        return entry.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    /// Sets `request`'s `remoteAddress` and `isForwardedHTTPS` from `peer` (its TCP peer's address) and its
    /// forwarding headers: the one place those headers are read, for requests off the socket and in-process alike.
    public func resolve(_ request: inout HTTPRequest, peer: String) {
        let headers = request.headers
        request.remoteAddress =
            ranges.isEmpty ? peer : clientAddress(peer: peer, forwardedFor: headers.values(for: "x-forwarded-for"))
        request.isForwardedHTTPS =
            !ranges.isEmpty && forwardedHTTPS(peer: peer, forwardedProto: headers.values(for: "x-forwarded-proto"))
    }

    /// One `X-Forwarded-For` entry: an address, `[v6]`, or an address with a port (`192.0.2.1:4711`,
    /// `[2001:db8::1]:4711`) as some balancers write it.
    private static func forwardedAddress(_ entry: Substring) -> [UInt8]? {
        var text = entry.drop(while: { $0 == " " || $0 == "\t" })
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || isPort(rest) else { return nil }
            return address(text[text.index(after: text.startIndex)..<close], allowingIPv4: false)
        }
        if let colon = text.firstIndex(of: ":"), text.contains("."), text.lastIndex(of: ":") == colon {
            guard isPort(text[colon...]) else { return nil }
            return address(text[..<colon])
        }
        return address(text)
    }

    /// `:` followed by 1 to 5 digits.
    private static func isPort(_ text: Substring) -> Bool {
        text.first == ":" && (2...6).contains(text.count) && text.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The bytes of an IPv4 or IPv6 address written as text; an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`)
    /// becomes its IPv4 address, so it matches IPv4 ranges and counts as that client.
    static func address(_ text: Substring, allowingIPv4: Bool = true) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count < Int(INET6_ADDRSTRLEN) else { return nil }
        let string = String(text)
        if allowingIPv4, !string.contains(":") {
            var raw = in_addr()
            guard inet_pton(AF_INET, string, &raw) == 1 else { return nil }
            return withUnsafeBytes(of: &raw) { Array($0) }
        }
        var raw = in6_addr()
        guard inet_pton(AF_INET6, string, &raw) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &raw) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }

    /// An address's canonical text, as the peer address of a connection is written.
    static func text(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 {
            return dottedQuad(bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        var raw = in6_addr()
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil else { return "" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
