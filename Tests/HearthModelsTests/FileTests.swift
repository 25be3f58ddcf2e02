import Foundation
import Hearth
import HearthModels
import HearthTestSupport
import Testing

/// A Ballcap-shaped object with a file beside its document.
final class Album: Object, DataRepresentable {
    struct Model: Modelable, Codable {
        var title: String = ""
        var cover: File? = nil
    }

    var data: Model?
}

@Suite("Ballcap's File: stored beside its document", .timeLimit(.minutes(2)))
@MainActor
struct FileTests {
    @Test("a File saved beside a document, kept in a field, read back and deleted")
    func savedBesideTheDocumentAndReadBack() async throws {
        try await withServer { server in
            let albums = Firestore.firestore(app: server.app()).collection(unique("albums"))
            let album = Album(collectionReference: albums)
            let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
            let cover = File(album, name: "cover", data: bytes, mimeType: .png, metadata: ["by": "ann"])
            #expect(cover.name == "cover.png")
            #expect(cover.path == "\(album.path)/cover.png")
            #expect(cover.storageReference == album.storageReference.child("cover.png"))
            #expect(!cover.isUploaded)

            let stored = try await cover.save()
            #expect(stored.contentType == "image/png")
            #expect(stored.customMetadata == ["by": "ann"])
            #expect(cover.isUploaded)
            let url = try #require(cover.url)

            album[\.title] = "Holiday"
            album[\.cover] = cover
            try await album.save()

            let stored0 = try await albums.document(album.id).getDocument(source: .server)
            let field = try #require(stored0.data()?["cover"] as? [String: Any])
            #expect(field["path"] as? String == cover.path)
            #expect(field["url"] as? String == url.absoluteString)
            #expect(field["mimeType"] as? String == "image/png")
            #expect(field["metadata"] as? [String: String] == ["by": "ann"])

            let read = try #require(try await Album.get(documentReference: album.documentReference, source: .server))
            let readCover = try #require(read[\.cover])
            #expect(readCover.path == cover.path)
            #expect(readCover.url == url)
            #expect(readCover.mimeType == .png)
            #expect(readCover.metadata == ["by": "ann"])
            #expect(readCover.additionalData == ["by": "ann"])
            #expect(readCover.storageReference.storage.app === albums.firestore.app)
            #expect(readCover.data == nil)
            #expect(try await readCover.getData(maxSize: 1 << 20) == bytes)
            #expect(readCover.data == bytes)

            // Marks the main queue, so the completion can tell whether it runs there.
            let mainQueue = DispatchSpecificKey<Bool>()
            DispatchQueue.main.setSpecific(key: mainQueue, value: true)
            defer { DispatchQueue.main.setSpecific(key: mainQueue, value: nil) }
            let viaCompletion: String = await withCheckedContinuation { continuation in
                let again = File(readCover.storageReference, mimeType: .png)
                again.getData { data, error in
                    continuation.resume(
                        returning:
                            "same: \(data == bytes), error: \(String(describing: error)), main: \(DispatchQueue.getSpecific(key: mainQueue) == true)"
                    )
                }
            }
            #expect(viaCompletion == "same: true, error: nil, main: true")

            try await readCover.delete()
            #expect(readCover.url == nil && readCover.data == nil && !readCover.isUploaded)
            do {
                _ = try await cover.storageReference.getMetadata()
                Issue.record("the deleted file is gone")
            } catch {
                #expect((error as? StorageError)?.code == .objectNotFound)
            }
        }
    }

    @Test("names take the MIME type's extension; a file with nothing to upload fails with invalidData")
    func namesAndNothingToUpload() async throws {
        try await withServer { server in
            let storage = Storage.storage(app: server.app())
            #expect(File(storage.reference(withPath: "a/b"), mimeType: .plain).path == "a/b.txt")
            #expect(File(storage.reference(withPath: "a/b.jpg")).mimeType == .jpeg)
            #expect(File(storage.reference(withPath: "a/b")).mimeType == .octetStream(nil))
            #expect(File.MIMEType(rawValue: "image/webp") == .custom("image/webp", ""))
            let empty = File(storage.reference(withPath: "a/empty.txt"))
            await #expect(throws: FileError.self) { try await empty.save() }
            let reported: Bool = await withCheckedContinuation { continuation in
                let task = empty.save { metadata, error in
                    continuation.resume(returning: metadata == nil && error is FileError)
                }
                #expect(task == nil)
            }
            #expect(reported)
        }
    }
}
