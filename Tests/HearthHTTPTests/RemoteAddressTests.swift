import Testing

@testable import HearthHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct RemoteAddressTests {
    /// The client address is formatted without inet_ntop; it must read exactly as inet_ntop writes it.
    @Test(arguments: [
        "0.0.0.0", "127.0.0.1", "10.0.0.255", "192.168.100.9", "255.255.255.255", "1.22.133.40", "100.10.1.0",
    ])
    func ipv4AddressesReadAsInetNtopWritesThem(text: String) {
        var raw = in_addr()
        #expect(inet_pton(AF_INET, text, &raw) == 1)
        #expect(dottedQuad(UInt32(bigEndian: raw.s_addr)) == text)
    }
}
