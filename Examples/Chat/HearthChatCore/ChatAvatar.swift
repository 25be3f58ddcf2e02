import Foundation
import Hearth

/// The signed-in user's avatar picture as the chat screen shows it: its type and size. The bytes live in Storage at
/// `users/{uid}/avatar`.
public struct ChatAvatar: Sendable, Equatable {
    /// The stored content type, `image/png` for a `.png` file.
    public let contentType: String
    /// The size in bytes.
    public let size: Int64

    /// An avatar of `contentType` and `size` bytes.
    public init(contentType: String, size: Int64) {
        self.contentType = contentType
        self.size = size
    }

    /// What the screen shows: `image/png, 12 KB` (kilobytes of 1,024 bytes, rounded).
    public var summary: String { "\(contentType), \(Self.sizeText(size))" }

    /// `512 bytes`, `12 KB`, `3.4 MB`.
    public static func sizeText(_ size: Int64) -> String {
        if size < 1024 { return size == 1 ? "1 byte" : "\(size) bytes" }
        if size < 1024 * 1024 { return "\(Int((Double(size) / 1024).rounded())) KB" }
        return String(format: "%.1f MB", Double(size) / (1024 * 1024))
    }

    /// `users/{uid}/avatar` in the app's default bucket.
    static func reference(app: HearthApp, uid: String) -> StorageReference {
        Storage.storage(app: app).reference(withPath: "users/\(uid)/avatar")
    }

    /// The content type for a picture's file name: from its extension, `application/octet-stream` if unknown.
    static func contentType(forFile url: URL) -> String {
        switch url.pathExtension.lowercased() {
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "heic": "image/heic"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
    }
}
