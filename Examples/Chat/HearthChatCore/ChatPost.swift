public import Foundation
import Hearth

/// One message of the signed-in user, as stored at `/posts/{uid}/{postID}` on the tree:
/// `{"text": …, "createdAt": <server milliseconds>, "editedAt": <server milliseconds, optional>}`.
public struct ChatPost: Sendable, Equatable, Identifiable {
    /// The longest message, in characters; `Examples/rules/chat.database.rules.json` enforces the same bound.
    public static let maxLength = 280

    /// The post's push key (time-ordered, made by the client).
    public let id: String
    /// The message.
    public var text: String
    /// When the server stored the post.
    public var createdAt: Date
    /// When the server stored the last edit, if the post was edited.
    public var editedAt: Date?

    /// Creates a post value.
    public init(id: String, text: String, createdAt: Date, editedAt: Date? = nil) {
        self.id = id
        self.text = text
        self.createdAt = createdAt
        self.editedAt = editedAt
    }

    /// The posts under one user's node, oldest first (server time, then key); children that are not posts are left
    /// out rather than failing the whole list.
    static func list(from snapshot: DataSnapshot) -> [ChatPost] {
        snapshot.children.allObjects.compactMap { element in
            guard let child = element as? DataSnapshot else { return nil }
            let id = child.key
            guard let fields = child.value as? [String: Any], let text = fields["text"] as? String,
                let created = milliseconds(fields["createdAt"])
            else { return nil }
            return ChatPost(
                id: id, text: text, createdAt: created, editedAt: milliseconds(fields["editedAt"]))
        }
        .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// A tree number (the SDK hands out `Int` or `Double`) read as milliseconds since 1970.
    private static func milliseconds(_ value: Any?) -> Date? {
        let millis: Double
        switch value {
        case let number as Int: millis = Double(number)
        case let number as Int64: millis = Double(number)
        case let number as Double: millis = number
        default: return nil
        }
        return Date(timeIntervalSince1970: millis / 1000)
    }
}
