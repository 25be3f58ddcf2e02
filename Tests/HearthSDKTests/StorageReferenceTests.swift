import Foundation
import Hearth
import Testing

/// References are built without the server: paths normalise as Firebase's do, and URLs name a bucket and path.
@Suite("Storage references")
struct StorageReferenceTests {
    let storage: Storage = {
        let name = "storage-refs-\(UUID().uuidString.prefix(8))"
        HearthApp.configure(
            name: name, options: HearthOptions(serverURL: URL(string: "http://127.0.0.1:9")!, projectID: "demo"))
        return Storage.storage(app: HearthApp.app(name: name)!)
    }()

    @Test func pathsNormaliseAndNavigate() {
        let root = storage.reference()
        #expect(root.bucket == "demo.appspot.com")
        #expect(root.fullPath == "" && root.name == "" && root.parent() == nil)
        let cat = root.child("/images//cats/").child("tom.jpg")
        #expect(cat.fullPath == "images/cats/tom.jpg")
        #expect(cat.name == "tom.jpg")
        #expect(cat.parent()?.fullPath == "images/cats")
        #expect(cat.parent()?.parent()?.parent() == root)
        #expect(cat.root() == root)
        #expect(cat.description == "gs://demo.appspot.com/images/cats/tom.jpg")
        #expect(storage.reference(withPath: "images/cats/tom.jpg") == cat)
        #expect(Storage.storage(app: storage.app) === storage)
    }

    @Test func urlsNameABucketAndPath() throws {
        let fromGS = try storage.reference(for: "gs://demo.appspot.com/a/b c.txt")
        #expect(fromGS.fullPath == "a/b c.txt")
        let fromDownload = try storage.reference(
            for: "http://127.0.0.1:8080/v0/b/demo.appspot.com/o/a%2Fb%20c.txt?alt=media&token=t")
        #expect(fromDownload == fromGS)
        #expect(storage.reference(forURL: "gs://demo.appspot.com/x").fullPath == "x")
        #expect(throws: StorageError.self) { try storage.reference(for: "gs://other-bucket/x") }
        do {
            _ = try storage.reference(for: "gs://other-bucket/x")
        } catch let error as StorageError {
            #expect(error.code == .bucketMismatch)
            #expect((error as NSError).domain == StorageErrorDomain)
            #expect(StorageErrorCode(rawValue: (error as NSError).code) == .bucketMismatch)
        }
        #expect(throws: StorageError.self) { try storage.reference(for: "ftp://example.com/file") }
        let other = Storage.storage(app: storage.app, url: "gs://other-bucket")
        #expect(other !== storage)
        #expect(other.reference().bucket == "other-bucket")
    }

    @Test func newMetadataHoldsWhatWasSet() {
        let metadata = StorageMetadata()
        metadata.contentType = "text/plain"
        metadata.customMetadata = ["owner": "ann"]
        #expect(metadata.contentType == "text/plain")
        #expect(metadata.dictionaryRepresentation()["contentType"] == AnyHashable("text/plain"))
        #expect(!metadata.isFile)
    }

    @Test func chunkSizeRoundsToTheProtocolsGranularity() {
        storage.uploadChunkSizeBytes = 300_000
        #expect(storage.uploadChunkSizeBytes == 262_144)
        storage.uploadChunkSizeBytes = 1
        #expect(storage.uploadChunkSizeBytes == 262_144)
        storage.uploadChunkSizeBytes = 1 << 20
        #expect(storage.uploadChunkSizeBytes == 1 << 20)
    }
}
