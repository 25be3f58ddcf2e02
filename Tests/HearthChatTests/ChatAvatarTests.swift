import Foundation
import Hearth
import HearthChatCore
import HearthTestSupport
import Testing

/// A picture file of `size` bytes named `name` in `directory` (a PNG signature, then filler).
func pictureFile(_ directory: URL, _ name: String, size: Int) throws -> URL {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    var bytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    bytes.append(Data(repeating: 0x2A, count: size - bytes.count))
    try bytes.write(to: url)
    return url
}

@Suite("Chat avatar: a picture in Storage at users/{uid}/avatar", .chatServer)
@MainActor
struct ChatAvatarTests {
    @Test("setting an avatar uploads the file through Storage; another device reads its type and size")
    func setAndReadBack() async throws {
        let server = try SharedServer.server
        let (model, email) = try await verifiedModel(server, "ava")
        await waitUntil { model.avatarLoaded }
        #expect(model.avatarLoaded && model.avatar == nil, "no avatar yet")
        let picture = try pictureFile(server.directory.appendingPathComponent("pictures"), "ava.png", size: 12 * 1024)

        try await model.setAvatar(fromFile: picture.path)
        #expect(model.avatar == ChatAvatar(contentType: "image/png", size: 12 * 1024))
        #expect(model.avatar?.summary == "image/png, 12 KB")
        let uid = try #require(Auth.auth(app: model.app).currentUser?.uid)
        let stored = try await Storage.storage(app: model.app).reference(withPath: "users/\(uid)/avatar")
            .data(maxSize: 1 << 20)
        #expect(stored == (try Data(contentsOf: picture)))

        // A second device signed in as the same user finds it.
        let other = ChatViewModel(app: server.app("ava-2"), timeZone: .gmt)
        try await other.signIn(email: email, password: "correct horse")
        await waitUntil { other.avatarLoaded }
        #expect(other.avatar?.summary == "image/png, 12 KB")
        try other.signOut()
        #expect(other.avatar == nil && !other.avatarLoaded, "signing out forgets it")
    }

    @Test("a path with no file is refused before anything is sent; sizes read as the screen shows them")
    func refusals() async throws {
        let server = try SharedServer.server
        let (model, _) = try await verifiedModel(server, "avb")
        let missing = server.directory.appendingPathComponent("no-such-picture.png").path
        await #expect(throws: ChatError.unreadableFile(missing)) { try await model.setAvatar(fromFile: missing) }
        await #expect(throws: ChatError.unreadableFile(server.directory.path)) {
            try await model.setAvatar(fromFile: server.directory.path)
        }
        #expect(model.avatar == nil)
        #expect(ChatAvatar.sizeText(1) == "1 byte" && ChatAvatar.sizeText(900) == "900 bytes")
        #expect(ChatAvatar.sizeText(1536) == "2 KB" && ChatAvatar.sizeText(3 * 1024 * 1024 + 400_000) == "3.4 MB")
    }
}
