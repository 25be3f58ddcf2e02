import Foundation
import Testing

@testable import HearthHTTP

@Suite struct FileResponseTests {
    /// A temporary file holding the bytes 0, 1, 2, … 255, 0, 1, … (`size` of them).
    private func makeFile(size: Int) throws -> String {
        let path = NSTemporaryDirectory() + "hearth-file-\(UUID().uuidString)"
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    private func server(serving path: String, size: Int) throws -> HTTPServer {
        try startServer { request in
            let fd = open(path, O_RDONLY)
            return .response(
                .file(
                    descriptor: fd, size: UInt64(size), range: request.headers["Range"],
                    headers: [("Content-Type", "application/octet-stream")]))
        }
    }

    @Test func wholeFileIsServedWithItsLength() throws {
        let path = try makeFile(size: 3 << 20)
        defer { unlink(path) }
        let server = try server(serving: path, size: 3 << 20)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let response = try client.request("GET", "/f")
        #expect(response.status == 200)
        #expect(response.header("Content-Length") == "\(3 << 20)")
        #expect(response.header("Accept-Ranges") == "bytes")
        #expect(response.body == (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0) })
        // The descriptor is closed once sent, so a second request works the same.
        #expect(try client.request("GET", "/f").body.count == 3 << 20)
    }

    @Test func rangesAnswer206() throws {
        let path = try makeFile(size: 1000)
        defer { unlink(path) }
        let server = try server(serving: path, size: 1000)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let middle = try client.request("GET", "/f", headers: ["Range: bytes=10-19"])
        #expect(middle.status == 206)
        #expect(middle.header("Content-Range") == "bytes 10-19/1000")
        #expect(middle.body == Array(10..<20).map { UInt8($0) })
        let tail = try client.request("GET", "/f", headers: ["Range: bytes=-5"])
        #expect(tail.header("Content-Range") == "bytes 995-999/1000")
        #expect(tail.body.count == 5)
        let open = try client.request("GET", "/f", headers: ["Range: bytes=998-"])
        #expect(open.body == [UInt8(998 % 256), UInt8(999 % 256)])
        let clipped = try client.request("GET", "/f", headers: ["Range: bytes=990-5000"])
        #expect(clipped.header("Content-Range") == "bytes 990-999/1000")
    }

    @Test func rangeOutsideTheFileIs416() throws {
        let path = try makeFile(size: 1000)
        defer { unlink(path) }
        let server = try server(serving: path, size: 1000)
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        let response = try client.request("GET", "/f", headers: ["Range: bytes=1000-"])
        #expect(response.status == 416)
        #expect(response.header("Content-Range") == "bytes */1000")
        #expect(response.body.isEmpty)
    }

    @Test func rangeHeaderParsing() {
        #expect(HTTPByteRange(header: nil, size: 10) == .whole)
        #expect(HTTPByteRange(header: "bytes=0-0", size: 10) == .partial(0...0))
        #expect(HTTPByteRange(header: "bytes=5-2", size: 10) == .whole)
        #expect(HTTPByteRange(header: "bytes=0-1,3-4", size: 10) == .whole)
        #expect(HTTPByteRange(header: "items=0-1", size: 10) == .whole)
        #expect(HTTPByteRange(header: "bytes=-0", size: 10) == .unsatisfiable)
        #expect(HTTPByteRange(header: "bytes=-20", size: 10) == .partial(0...9))
        #expect(HTTPByteRange(header: "bytes=0-", size: 0) == .unsatisfiable)
    }
}
