import Foundation
import HearthCore
import Testing

@testable import HearthStorage

/// A store in a fresh temporary directory, removed afterwards.
func withStore<T>(
    maxObjectBytes: Int = 1 << 30, _ body: (FileStore, String) throws -> T
) throws -> T {
    let directory = NSTemporaryDirectory() + "hearth-storage-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var configuration = FileStore.Configuration(directory: directory)
    configuration.maxObjectBytes = maxObjectBytes
    let store = try FileStore(configuration: configuration)
    defer { store.close() }
    return try body(store, directory)
}

func files(in directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
}

extension BlobWriter {
    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }
}

func readAll(_ store: FileStore, _ object: StoredObject) throws -> [UInt8] {
    let fd = try store.openBytes(of: object)
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        bytes += buffer[..<count]
    }
    return bytes
}

@Suite struct FileStoreTests {
    @Test func commitStoresBytesWithChecksums() throws {
        try withStore { store, directory in
            let writer = try store.makeWriter()
            try writer.write(Array("hello world".utf8))
            let object = try store.commit(
                writer, bucket: "b", name: "greetings/hello.txt",
                attributes: ObjectAttributes(contentType: "text/plain"))
            #expect(object.size == 11)
            // Known values for "hello world": MD5 5eb63bbbe01eeed093cb22bb8f5acdc3, CRC-32C c99465aa.
            #expect(object.md5Hash == "XrY7u+Ae7tCTyyK7j1rNww==")
            #expect(object.crc32c == "yZRlqg==")
            #expect(object.downloadTokens.count == 1)
            let fetched = try #require(try store.object(bucket: "b", name: "greetings/hello.txt"))
            #expect(fetched == object)
            #expect(try readAll(store, fetched) == Array("hello world".utf8))
            #expect(files(in: directory + "/tmp").isEmpty)
            #expect(files(in: directory + "/blobs").count == 1)
        }
    }

    @Test func replacingAndDeletingRemovesBytes() throws {
        try withStore { store, directory in
            for text in ["one", "two"] {
                let writer = try store.makeWriter()
                try writer.write(Array(text.utf8))
                _ = try store.commit(writer, bucket: "b", name: "f", attributes: ObjectAttributes())
            }
            #expect(files(in: directory + "/blobs").count == 1)
            let current = try #require(try store.object(bucket: "b", name: "f"))
            #expect(try readAll(store, current) == Array("two".utf8))
            let copy = try store.copy(bucket: "b", name: "f", toBucket: "b", toName: "g", attributes: nil)
            #expect(try readAll(store, copy) == Array("two".utf8))
            #expect(try store.delete(bucket: "b", name: "f"))
            #expect(try store.object(bucket: "b", name: "f") == nil)
            #expect(try store.delete(bucket: "b", name: "g"))
            #expect(!(try store.delete(bucket: "b", name: "g")))
            #expect(files(in: directory + "/blobs").isEmpty)
        }
    }

    @Test func abandonedWriterLeavesNothing() throws {
        try withStore { store, directory in
            let writer = try store.makeWriter()
            try writer.write([UInt8](repeating: 1, count: 1000))
            #expect(files(in: directory + "/tmp").count == 1)
            writer.abandon()
            #expect(files(in: directory + "/tmp").isEmpty)
            #expect(try store.object(bucket: "b", name: "x") == nil)
        }
    }

    @Test func maximumObjectSizeIsEnforcedWhileWriting() throws {
        try withStore(maxObjectBytes: 100) { store, directory in
            let writer = try store.makeWriter()
            try writer.write([UInt8](repeating: 1, count: 100))
            #expect(throws: HearthError.self) { try writer.write([1]) }
            #expect(files(in: directory + "/tmp").isEmpty)
        }
    }

    @Test func objectNameRules() throws {
        #expect(throws: HearthError.self) { try ObjectName.validate("") }
        #expect(throws: HearthError.self) { try ObjectName.validate(String(repeating: "a", count: 1025)) }
        #expect(throws: HearthError.self) { try ObjectName.validate("a\nb") }
        #expect(throws: HearthError.self) { try ObjectName.validate("a\rb") }
        try ObjectName.validate(String(repeating: "é", count: 512))
        try withStore { store, directory in
            let writer = try store.makeWriter()
            try writer.write([1])
            #expect(throws: HearthError.self) {
                try store.commit(writer, bucket: "b", name: "bad\nname", attributes: ObjectAttributes())
            }
            #expect(files(in: directory + "/tmp").isEmpty)
            #expect(files(in: directory + "/blobs").isEmpty)
            // A name that would traverse as a path is only a key: the bytes stay inside the store.
            let traversal = try store.makeWriter()
            try traversal.write([2])
            _ = try store.commit(traversal, bucket: "b", name: "../../etc/passwd", attributes: ObjectAttributes())
            #expect(files(in: directory + "/blobs").count == 1)
            #expect(try store.object(bucket: "b", name: "../../etc/passwd")?.size == 1)
        }
    }

    @Test func reopeningSweepsWhatACrashLeft() throws {
        let directory = NSTemporaryDirectory() + "hearth-storage-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try FileStore(configuration: .init(directory: directory))
        let writer = try store.makeWriter()
        try writer.write([1, 2, 3])
        // A blob renamed into place whose row never committed, as after a crash between the two.
        #expect(
            FileManager.default.createFile(
                atPath: directory + "/blobs/" + String(repeating: "a", count: 32), contents: nil))
        let session = try store.startSession(bucket: "b", name: "big", attributes: ObjectAttributes())
        store.close()
        let reopened = try FileStore(configuration: .init(directory: directory))
        defer { reopened.close() }
        #expect(files(in: directory + "/blobs").isEmpty)
        // Only the live session's file survives.
        #expect(files(in: directory + "/tmp") == [session.blobID])
        _ = writer
    }

    @Test func listingWithPrefixDelimiterAndPages() throws {
        try withStore { store, _ in
            for name in ["a/1", "a/2", "a/sub/3", "a/sub/4", "b/5", "top"] {
                let writer = try store.makeWriter()
                try writer.write([0])
                _ = try store.commit(writer, bucket: "b", name: name, attributes: ObjectAttributes())
            }
            let folders = try store.list(bucket: "b", prefix: "", delimiter: "/", maxResults: 100, pageToken: nil)
            #expect(folders.items.map(\.name) == ["top"])
            #expect(folders.prefixes == ["a/", "b/"])
            let underA = try store.list(bucket: "b", prefix: "a/", delimiter: "/", maxResults: 100, pageToken: nil)
            #expect(underA.items.map(\.name) == ["a/1", "a/2"])
            #expect(underA.prefixes == ["a/sub/"])
            var names: [String] = []
            var token: String?
            repeat {
                let page = try store.list(bucket: "b", prefix: "a/", delimiter: nil, maxResults: 3, pageToken: token)
                names += page.items.map(\.name)
                token = page.nextPageToken
            } while token != nil
            #expect(names == ["a/1", "a/2", "a/sub/3", "a/sub/4"])
            #expect(
                try store.list(bucket: "other", prefix: "", delimiter: nil, maxResults: 10, pageToken: nil).items
                    .isEmpty)
        }
    }

    @Test func resumableSessionAcrossChunks() throws {
        try withStore { store, directory in
            let session = try store.startSession(
                bucket: "b", name: "big.bin", attributes: ObjectAttributes(contentType: "application/x-big"))
            let first = try store.appender(for: session)
            try [UInt8](repeating: 7, count: 1000).withUnsafeBytes { try first.write($0) }
            #expect(try first.finish(in: store) == 1000)
            // A chunk that fails part-way keeps what the session had.
            let reloaded = try #require(try store.session(session.id))
            #expect(reloaded.received == 1000)
            let broken = try store.appender(for: reloaded)
            try [UInt8](repeating: 8, count: 500).withUnsafeBytes { try broken.write($0) }
            broken.discard()
            let second = try store.appender(for: try #require(try store.session(session.id)))
            try [UInt8](repeating: 9, count: 24).withUnsafeBytes { try second.write($0) }
            #expect(try second.finish(in: store) == 1024)
            let object = try store.finalize(try #require(try store.session(session.id)))
            #expect(object.size == 1024)
            #expect(object.attributes.contentType == "application/x-big")
            #expect(try readAll(store, object) == [UInt8](repeating: 7, count: 1000) + [UInt8](repeating: 9, count: 24))
            #expect(try store.session(session.id) == nil)
            #expect(files(in: directory + "/tmp").isEmpty)
        }
    }

    @Test func cancelledSessionLeavesNothing() throws {
        try withStore { store, directory in
            let session = try store.startSession(bucket: "b", name: "x", attributes: ObjectAttributes())
            #expect(try store.cancel(session))
            #expect(try store.session(session.id) == nil)
            #expect(files(in: directory + "/tmp").isEmpty)
        }
    }

    @Test func expiredSessionIsGone() throws {
        let directory = NSTemporaryDirectory() + "hearth-storage-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = FileStore.Configuration(directory: directory)
        configuration.sessionLifetime = .seconds(-1)
        let store = try FileStore(configuration: configuration)
        defer { store.close() }
        let session = try store.startSession(bucket: "b", name: "x", attributes: ObjectAttributes())
        #expect(try store.session(session.id) == nil)
    }

    @Test func metadataUpdatesAndTokens() throws {
        try withStore { store, _ in
            let writer = try store.makeWriter()
            try writer.write([1])
            let object = try store.commit(writer, bucket: "b", name: "m", attributes: ObjectAttributes())
            let updated = try store.updateMetadata(bucket: "b", name: "m") { object throws(HearthError) in
                try object.attributes.apply(["contentType": "image/png", "metadata": .object(["k": "v"])])
            }
            #expect(updated.metageneration == 2)
            #expect(updated.generation == object.generation)
            #expect(updated.attributes.custom == ["k": "v"])
            #expect(updated.etag != object.etag)
            let more = try store.createToken(bucket: "b", name: "m")
            #expect(more.downloadTokens.count == 2)
            let fewer = try store.deleteToken(more.downloadTokens[0], bucket: "b", name: "m")
            #expect(fewer.downloadTokens == [more.downloadTokens[1]])
        }
    }
}
