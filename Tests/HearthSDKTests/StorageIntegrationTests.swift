import Foundation
import Hearth
import HearthTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Storage through the SDK against a real `hearth serve --dev`: uploads, downloads, metadata, listing, deletes.
@Suite("Storage against a real server", .sharedServer, .timeLimit(.minutes(2)))
struct StorageIntegrationTests {
    func folder() throws -> StorageReference {
        let storage = Storage.storage(app: try SharedServer.server.app())
        storage.callbackQueue = DispatchQueue(label: "hearth.tests.storage")
        return storage.reference().child(unique("files"))
    }

    func code(_ error: any Error) -> StorageErrorCode? { (error as? StorageError)?.code }

    @Test func putGetUpdateAndDelete() async throws {
        let file = try folder().child("notes/hello.txt")
        let bytes = Data("hello, storage".utf8)
        let metadata = StorageMetadata()
        metadata.contentType = "text/plain"
        metadata.customMetadata = ["owner": "ann", "draft": "yes"]
        let stored = try await file.putDataAsync(bytes, metadata: metadata)
        #expect(stored.size == Int64(bytes.count))
        #expect(stored.contentType == "text/plain")
        #expect(stored.customMetadata == ["owner": "ann", "draft": "yes"])
        #expect(stored.path == file.fullPath)
        #expect(stored.name == "hello.txt")
        #expect(stored.bucket == "demo.appspot.com")
        #expect(stored.generation > 0)
        #expect(stored.md5Hash.flatMap { Data(base64Encoded: $0) }?.count == 16)
        #expect(stored.timeCreated != nil && stored.updated != nil)
        #expect(stored.storageReference == file)
        #expect(stored.isFile)

        #expect(try await file.data(maxSize: 1024) == bytes)
        let read = try await file.getMetadata()
        #expect(read.size == stored.size && read.md5Hash == stored.md5Hash && read.generation == stored.generation)

        // A download URL opens the file without credentials.
        let url = try await file.downloadURL()
        #expect(url.absoluteString.contains("alt=media") && url.absoluteString.contains("token="))
        let (downloaded, response) = try await URLSession.shared.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(downloaded == bytes)
        #expect(try file.storage.reference(for: url.absoluteString) == file)

        // Only what changed is sent: a new field, a changed and a removed custom key.
        read.cacheControl = "public, max-age=60"
        read.customMetadata = ["owner": "bob"]
        let updated = try await file.updateMetadata(read)
        #expect(updated.cacheControl == "public, max-age=60")
        #expect(updated.customMetadata == ["owner": "bob"])
        #expect(updated.contentType == "text/plain")
        #expect(updated.metageneration > stored.metageneration)

        try await file.delete()
        await #expect(throws: StorageError.self) { try await file.getMetadata() }
        do {
            try await file.delete()
            Issue.record("a second delete finds nothing")
        } catch {
            #expect(code(error) == .objectNotFound)
            #expect(StorageErrorCode(rawValue: (error as NSError).code) == .objectNotFound)
            #expect((error as NSError).domain == StorageErrorDomain)
        }
        do {
            _ = try await file.data(maxSize: 100)
            Issue.record("a deleted file cannot be downloaded")
        } catch {
            #expect(code(error) == .objectNotFound)
        }
    }

    /// Firebase's `Result`-typed completions give the same answers as the pair forms, on the callback queue.
    @Test func resultTypedCompletions() async throws {
        let folder = try folder()
        let file = folder.child("result.txt")
        let bytes = Data("result forms".utf8)
        func awaited<Value: Sendable>(
            _ call: (@escaping @Sendable (Result<Value, any Error>) -> Void) -> Void
        ) async -> Result<Value, any Error> {
            await withCheckedContinuation { continuation in call { continuation.resume(returning: $0) } }
        }
        let stored = try await awaited { done in file.putData(bytes) { done($0) } }.get()
        #expect(stored.size == Int64(bytes.count))
        #expect(try await awaited { done in file.getData(maxSize: 1024) { done($0) } }.get() == bytes)
        #expect(try await awaited { done in file.getMetadata { done($0) } }.get().size == stored.size)
        let changed = StorageMetadata()
        changed.customMetadata = ["k": "v"]
        #expect(
            try await awaited { done in file.updateMetadata(changed) { done($0) } }.get().customMetadata == ["k": "v"])
        #expect(try await awaited { done in file.downloadURL { done($0) } }.get().absoluteString.contains("token="))
        #expect(try await awaited { done in folder.listAll { done($0) } }.get().items == [file])
        #expect(try await awaited { done in folder.list(maxResults: 1) { done($0) } }.get().items == [file])
        let local = FileManager.default.temporaryDirectory.appendingPathComponent(unique("result"))
        defer { try? FileManager.default.removeItem(at: local) }
        #expect(try await awaited { done in file.write(toFile: local) { done($0) } }.get() == local)
        #expect(try Data(contentsOf: local) == bytes)
        // A failure arrives as `.failure` with the Storage error code.
        let missing = await awaited { done in folder.child("missing").getData(maxSize: 10) { done($0) } }
        guard case .failure(let failure) = missing else {
            Issue.record("a missing object downloaded")
            return
        }
        #expect(code(failure) == .objectNotFound)
    }

    @Test func listPagesAndListAll() async throws {
        let folder = try folder()
        for name in ["a.txt", "b.txt", "c.txt", "photos/x.jpg", "photos/y.jpg", "docs/z.txt"] {
            _ = try await folder.child(name).putDataAsync(Data(name.utf8))
        }
        let first = try await folder.list(maxResults: 2)
        #expect(first.items.map(\.name) + first.prefixes.map(\.name) == ["a.txt", "b.txt"])
        let token = try #require(first.pageToken)
        let second = try await folder.list(maxResults: 10, pageToken: token)
        #expect(second.items.map(\.name) == ["c.txt"])
        #expect(second.prefixes.map(\.fullPath) == [folder.child("docs").fullPath, folder.child("photos").fullPath])
        #expect(second.pageToken == nil)

        let all = try await folder.listAll()
        #expect(all.items.map(\.name) == ["a.txt", "b.txt", "c.txt"])
        #expect(all.prefixes.map(\.name) == ["docs", "photos"])
        let photos = try await all.prefixes[1].listAll()
        #expect(photos.items.map(\.name) == ["x.jpg", "y.jpg"])

        do {
            _ = try await folder.list(maxResults: 0)
            Issue.record("maxResults 0 is refused")
        } catch {
            #expect(code(error) == .invalidArgument)
        }
    }

    @Test func getDataEnforcesMaxSizeAndWriteToFileStreams() async throws {
        let file = try folder().child("blob.bin")
        let bytes = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        _ = try await file.putDataAsync(bytes)
        do {
            _ = try await file.data(maxSize: Int64(bytes.count - 1))
            Issue.record("a download larger than maxSize fails")
        } catch {
            #expect(code(error) == .downloadSizeExceeded)
        }
        #expect(try await file.data(maxSize: Int64(bytes.count)) == bytes)

        let target = FileManager.default.temporaryDirectory
            .appendingPathComponent("hearth-storage-\(UUID().uuidString)/nested/blob.bin")
        defer {
            try? FileManager.default.removeItem(at: target.deletingLastPathComponent().deletingLastPathComponent())
        }
        #expect(try await file.writeAsync(toFile: target) == target)
        #expect(try Data(contentsOf: target) == bytes)
    }

    @Test func putFileReadsTheFileAndInfersItsContentType() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-put-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let local = directory.appendingPathComponent("picture.png")
        let bytes = Data((0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: local)
        let file = try folder().child("picture.png")
        let stored = try await file.putFileAsync(from: local)
        #expect(stored.contentType == "image/png")
        #expect(stored.size == Int64(bytes.count))
        #expect(try await file.data(maxSize: 1 << 20) == bytes)

        let missing = await withCheckedContinuation { continuation in
            file.putFile(from: directory.appendingPathComponent("absent.png")) { metadata, error in
                continuation.resume(returning: metadata == nil && error != nil)
            }
        }
        #expect(missing)
    }
}
