public import Foundation
import HearthCore
import Synchronization

/// Profile changes committed together — Hearth's `UserProfileChangeRequest`.
public final class UserProfileChangeRequest: Sendable {
    private let user: User
    private let changes = Mutex<(displayName: String??, photoURL: URL??)>((nil, nil))

    init(user: User) { self.user = user }

    /// The new display name (`nil` removes it).
    public var displayName: String? {
        get { changes.withLock { $0.displayName ?? nil } }
        set { changes.withLock { $0.displayName = .some(newValue) } }
    }

    /// The new photo URL (`nil` removes it).
    public var photoURL: URL? {
        get { changes.withLock { $0.photoURL ?? nil } }
        set { changes.withLock { $0.photoURL = .some(newValue) } }
    }

    /// Sends the changes to the server.
    public func commitChanges() async throws {
        let (name, photo) = changes.withLock { ($0.displayName, $0.photoURL) }
        if let name { try await user.updateDisplayName(to: name) }
        if let photo { try await user.updatePhotoURL(to: photo) }
    }

    /// Completion-handler form of ``commitChanges()``.
    public func commitChanges(completion: (@Sendable ((any Error)?) -> Void)? = nil) {
        user.auth.callbacks.completeVoid(completion) { try await self.commitChanges() }
    }
}

extension User {
    /// A request to change the display name or photo URL.
    public func createProfileChangeRequest() -> UserProfileChangeRequest { UserProfileChangeRequest(user: self) }

    /// Sets the photo URL.
    func updatePhotoURL(to url: URL?) async throws {
        let token = try await getIDToken()
        var body: [String: JSONValue] = ["idToken": .string(token)]
        if let url { body["photoUrl"] = .string(url.absoluteString) } else { body["deleteAttribute"] = ["PHOTO_URL"] }
        _ = try await auth.client.call("update", body)
    }
}
