import Foundation
import Hearth
import HearthModels
import HearthTestSupport
import Testing

/// A Ballcap-shaped object holding files in an optional and in an array.
final class Gallery: Object, DataRepresentable {
    struct Model: Modelable, Codable {
        var title: String = ""
        var cover: File? = nil
        var pages: [File] = []
    }

    var data: Model?
}

/// A typed-layer model holding a file.
struct Letter: Codable, Sendable {
    var subject: String
    var scan: File?
}

@Suite("Saving a document uploads its new files first; deleting it can delete them", .timeLimit(.minutes(2)))
@MainActor
struct FileSavingTests {
    static func notFound(_ file: File) async -> Bool {
        do {
            _ = try await file.storageReference.getMetadata()
            return false
        } catch {
            return (error as? StorageError)?.code == .objectNotFound
        }
    }

    @Test("an Object's save uploads new files (optional and array), records their URLs, and re-saves none")
    func objectSaveUploadsFirst() async throws {
        try await withServer { server in
            let galleries = Firestore.firestore(app: server.app()).collection(unique("galleries"))
            let gallery = Gallery(collectionReference: galleries)
            let cover = File(gallery, name: "cover", data: Data("cover".utf8), mimeType: .png)
            let page = File(gallery, name: "page1", data: Data("page one".utf8), mimeType: .plain)
            gallery[\.title] = "Autumn"
            gallery[\.cover] = cover
            gallery[\.pages] = [page]
            #expect(cover.hasUnsavedBytes && page.hasUnsavedBytes)

            try await gallery.save()
            #expect(cover.isUploaded && page.isUploaded && !cover.hasUnsavedBytes)
            let stored = try await galleries.document(gallery.id).getDocument(source: .server)
            let field = try #require(stored.data()?["cover"] as? [String: Any])
            #expect(field["url"] as? String == cover.url?.absoluteString && cover.url != nil)
            let pages = try #require(stored.data()?["pages"] as? [[String: Any]])
            #expect(pages.first?["url"] as? String == page.url?.absoluteString && page.url != nil)
            let generation = try await cover.storageReference.getMetadata().generation

            // Read back and downloaded, a file's bytes are the stored ones: saving the document again uploads nothing.
            let read = try #require(
                try await Gallery.get(documentReference: gallery.documentReference, source: .server))
            let readCover = try #require(read[\.cover])
            #expect(!readCover.hasUnsavedBytes)
            #expect(try await readCover.getData() == Data("cover".utf8))
            #expect(!readCover.hasUnsavedBytes)
            read[\.title] = "Autumn, again"
            try await read.update()
            #expect(try await cover.storageReference.getMetadata().generation == generation)

            // Bytes set anew are uploaded on the next save.
            readCover.data = Data("new cover".utf8)
            #expect(readCover.hasUnsavedBytes)
            try await read.save()
            #expect(try await cover.storageReference.getMetadata().generation != generation)
            #expect(try await cover.storageReference.data(maxSize: 1 << 20) == Data("new cover".utf8))
        }
    }

    @Test("the completion form uploads, then writes, then calls back on the main actor; a failed upload writes nothing")
    func completionForm() async throws {
        try await withServer(arguments: ["--storage-rules", try Self.rulesDenyingUploads()]) { server in
            let galleries = Firestore.firestore(app: server.app()).collection(unique("galleries"))
            let gallery = Gallery(collectionReference: galleries)
            gallery[\.cover] = File(gallery, name: "c", data: Data("x".utf8), mimeType: .png)
            let error: (any Error)? = await withCheckedContinuation { continuation in
                gallery.save { error in
                    MainActor.assertIsolated()
                    continuation.resume(returning: error)
                }
            }
            #expect(error is StorageError, "\(String(describing: error))")
            let stored = try await galleries.document(gallery.id).getDocument(source: .server)
            #expect(!stored.exists, "nothing written")

            // Without files, the write is queued at once, as before.
            let plain = Gallery(collectionReference: galleries)
            plain[\.title] = "no files"
            let plainError: (any Error)? = await withCheckedContinuation { continuation in
                plain.save { continuation.resume(returning: $0) }
            }
            #expect(plainError == nil)
        }
    }

    @Test("delete(deletingFiles:) deletes the files, then the document; plain delete leaves them")
    func deleteCanDeleteFiles() async throws {
        try await withServer { server in
            let galleries = Firestore.firestore(app: server.app()).collection(unique("galleries"))
            let kept = Gallery(collectionReference: galleries)
            let keptCover = File(kept, name: "cover", data: Data("kept".utf8), mimeType: .png)
            kept[\.cover] = keptCover
            try await kept.save()
            try await kept.delete()
            #expect(!(await Self.notFound(keptCover)), "plain delete leaves the file")

            let gone = Gallery(collectionReference: galleries)
            let cover = File(gone, name: "cover", data: Data("gone".utf8), mimeType: .png)
            let page = File(gone, name: "page", data: Data("page".utf8), mimeType: .plain)
            gone[\.cover] = cover
            gone[\.pages] = [page]
            try await gone.save()
            try await page.storageReference.delete()  // already gone counts as deleted
            try await gone.delete(deletingFiles: true)
            #expect(!(try await galleries.document(gone.id).getDocument(source: .server)).exists)
            #expect(await Self.notFound(cover))

            // The typed layer's Document<M> does the same.
            let letters = galleries.firestore.collection(unique("letters"))
            let reference = letters.document()
            let storage = Storage.storage(app: letters.firestore.app).reference(withPath: reference.path)
            let scan = File(storage.child("scan.pdf"), data: Data("%PDF".utf8), mimeType: .pdf)
            let letter = Document(Letter(subject: "Hello", scan: scan), reference: reference)
            try await letter.save()
            #expect(scan.isUploaded && scan.url != nil)
            let read = try #require(try await reference.getDocument(source: .server).data()?["scan"] as? [String: Any])
            #expect(read["url"] as? String == scan.url?.absoluteString)
            try await letter.delete(deletingFiles: true)
            #expect(await Self.notFound(scan))
        }
    }

    /// Storage rules that refuse every write.
    static func rulesDenyingUploads() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("deny-\(UUID().uuidString).rules")
        try """
        rules_version = '2';
        service firebase.storage {
          match /b/{bucket}/o {
            match /{all=**} { allow read; allow write: if false; }
          }
        }
        """.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }
}
