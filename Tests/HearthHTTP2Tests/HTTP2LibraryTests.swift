import HearthHTTP2
import Testing

@Suite struct HTTP2LibraryTests {
    @Test func theLinkedLibraryIsRecentEnough() throws {
        let version = try #require(HTTP2Library.version)
        #expect(version.split(separator: ".").count == 3)
    }
}
