internal import CMicroHTTPD
import Foundation

/// Builds the `HTTPRequest` for a connection whose request is complete, from what libmicrohttpd has parsed.
///
/// libmicrohttpd has already split off the query string, percent-decoded the path, and decoded every argument
/// (`+` and `%XX`), keeping duplicates. The client address is the TCP peer's, or what `trustedProxies` say the
/// `X-Forwarded-For` of a trusted proxy's request means, and so is `isForwardedHTTPS`
/// (``TrustedProxies/resolve(_:peer:)``).
func makeRequest(
    connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?, body: [UInt8],
    bodyTooLarge: Bool, trustedProxies: TrustedProxies
) -> HTTPRequest {
    var headers: [(name: String, value: String)] = []
    // Room for what a typical client sends, so the list is not regrown two or three times per request.
    headers.reserveCapacity(12)
    withUnsafeMutablePointer(to: &headers) { pointer in
        _ = MHD_get_connection_values_n(connection, .HEADER_KIND, collectHeader, pointer)
    }
    var query: [HTTPQueryItem] = []
    withUnsafeMutablePointer(to: &query) { pointer in
        _ = MHD_get_connection_values_n(connection, .GET_ARGUMENT_KIND, collectQueryItem, pointer)
    }
    let peer = remoteAddress(of: connection)
    var request = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "",
        path: url.map { String(cString: $0) } ?? "/",
        query: query,
        headers: HTTPHeaders(headers),
        body: body,
        remoteAddress: peer,
        bodyTooLarge: bodyTooLarge)
    trustedProxies.resolve(&request, peer: peer)
    return request
}

private func collectHeader(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, keySize: Int,
    value: UnsafePointer<CChar>?, valueSize: Int
) -> MHD_Result {
    guard let cls else { return .NO }
    let headers = cls.assumingMemoryBound(to: [(name: String, value: String)].self)
    headers.pointee.append((name: text(key, keySize), value: text(value, valueSize)))
    return .YES
}

private func collectQueryItem(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, keySize: Int,
    value: UnsafePointer<CChar>?, valueSize: Int
) -> MHD_Result {
    guard let cls else { return .NO }
    let items = cls.assumingMemoryBound(to: [HTTPQueryItem].self)
    items.pointee.append(HTTPQueryItem(name: text(key, keySize), value: text(value, valueSize)))
    return .YES
}

/// Decodes with the length libmicrohttpd reports rather than scanning for NUL, so a decoded `%00` cannot truncate.
/// Invalid UTF-8 becomes U+FFFD.
private func text(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String {
    guard let pointer, count > 0 else { return "" }
    return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
        String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
    }
}

private func remoteAddress(of connection: OpaquePointer) -> String {
    guard let address = hearth_mhd_client_address(connection) else { return "" }
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
        // Formatted here rather than by inet_ntop: every request needs it, and inet_ntop plus its buffer cost more
        // than the rest of building the request.
        let raw = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
        return dottedQuad(UInt32(bigEndian: raw))
    case AF_INET6:
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
            var raw = ipv6.pointee.sin6_addr
            _ = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
        }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    default:
        return ""
    }
}

/// An IPv4 address (host byte order) as `a.b.c.d`, as inet_ntop writes it.
func dottedQuad(_ address: UInt32) -> String {
    // At most 15 bytes, so the result is a small string and allocates nothing.
    String(unsafeUninitializedCapacity: 15) { text in
        var count = 0
        for shift in stride(from: 24, through: 0, by: -8) {
            let octet = UInt8(truncatingIfNeeded: address >> UInt32(shift))
            if shift != 24 {
                text[count] = UInt8(ascii: ".")
                count += 1
            }
            if octet >= 100 {
                text[count] = 0x30 + octet / 100
                count += 1
            }
            if octet >= 10 {
                text[count] = 0x30 + octet / 10 % 10
                count += 1
            }
            text[count] = 0x30 + octet % 10
            count += 1
        }
        return count
    }
}
