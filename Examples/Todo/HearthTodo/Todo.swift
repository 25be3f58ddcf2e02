public import Foundation
public import HearthModels

/// One todo. `owner` is the creator's user ID: the rules (`Examples/Todo/todo.rules`) let only the owner read or
/// change it. Hearth's typed layer adds `createdAt` and `updatedAt`. An ``attachment`` is a file in Storage beside
/// the todo's document (`todos/{id}/{name}`), stored in the document as Ballcap's `{path, url, mimeType, metadata}`.
public struct Todo: Codable, Sendable, Equatable {
    /// The creator's user ID.
    public var owner: String
    /// What to do (1–200 characters).
    public var title: String
    /// Details, possibly empty.
    public var note: String
    /// 1 (low) to 5 (high), shown as stars.
    public var importance: Int
    /// When it is due; the list shows the latest first.
    public var date: Date
    /// Whether it is done.
    public var completed: Bool
    /// A file attached to it, if any (absent from the document when `nil`).
    public var attachment: File?

    /// A todo of `owner`'s, not yet completed.
    public init(
        owner: String, title: String, note: String = "", importance: Int = 3, date: Date, completed: Bool = false,
        attachment: File? = nil
    ) {
        self.owner = owner
        self.title = title
        self.note = note
        self.importance = importance
        self.date = date
        self.completed = completed
        self.attachment = attachment
    }

    /// The importance as five stars, filled up to it: `★★★☆☆`.
    public var stars: String {
        let filled = min(max(importance, 0), Todo.importanceRange.upperBound)
        return String(repeating: "★", count: filled) + String(repeating: "☆", count: 5 - filled)
    }

    /// The importances allowed.
    public static let importanceRange = 1...5
    /// The longest title the rules accept.
    public static let maximumTitleLength = 200
}
