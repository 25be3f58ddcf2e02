public import Foundation
public import Hearth
public import HearthModels
public import Observation

/// The todo app's view model, shared by the terminal UI (`hearth-todo`) and the SwiftUI app
/// (`Examples/TodoSwiftUI`): the signed-in user's todos, live, ordered by date (latest first) then by last change,
/// and the actions on them.
///
/// Editing works on copies: ``draft(for:)`` hands out a `Document<Todo>` value that the editor changes freely;
/// ``save(_:)`` writes it and cancelling just drops it, so the list — here and on every other device — only ever
/// shows saved todos.
@MainActor
@Observable
public final class TodoListModel {
    /// The user whose todos these are.
    public let userID: String
    @ObservationIgnored private let collection: CollectionReference
    @ObservationIgnored private let live: LiveDocuments<Todo>

    /// The todos, in display order.
    public var todos: [Document<Todo>] { live.documents }
    /// Whether the first results have arrived.
    public var isLoaded: Bool { live.isLoaded }
    /// Why the list stopped updating, if it did.
    public var failure: (any Error)? { live.error }
    /// The title with the live count: "3 Todo Items", "1 Todo Item".
    public var title: String { todos.count == 1 ? "1 Todo Item" : "\(todos.count) Todo Items" }

    /// The model for `userID`'s todos in `firestore` (the collection `todos`).
    public init(firestore: Firestore, userID: String) {
        self.userID = userID
        collection = firestore.collection(Self.collectionID)
        live = LiveDocuments(
            DocumentList<Todo>(collection)
                // The rules only allow reading one's own todos, and a query must say so.
                .where("owner", isEqualTo: userID)
                .order(by: "date", descending: true)
                .order(by: DocumentField.updatedAt, descending: true))
    }

    /// The collection holding every user's todos.
    public static let collectionID = "todos"

    /// Starts following the list.
    public func start() { live.start() }
    /// Stops following it.
    public func stop() { live.stop() }

    /// A new, unsaved todo for the editor: due now, importance 3.
    public func newDraft(title: String = "", date: Date = Date()) -> Document<Todo> {
        Document(Todo(owner: userID, title: title, date: date), in: collection)
    }

    /// A copy of `todo` for the editor; changing it changes nothing else.
    public func draft(for todo: Document<Todo>) -> Document<Todo> { todo }

    /// Writes a new or edited draft.
    /// - Throws: ``TodoError`` for a draft the rules would refuse; `notFound` when the edited todo was deleted
    ///   meanwhile; the server's error otherwise.
    public func save(_ draft: Document<Todo>) async throws {
        var draft = draft
        draft[\.title] = draft[\.title].trimmingCharacters(in: .whitespacesAndNewlines)
        try TodoError.check(draft.data)
        // A draft read from the database carries its creation time; updating it (rather than saving it whole) fails
        // with notFound when another device deleted the todo meanwhile, instead of bringing it back.
        if draft.createdAt == nil {
            try await draft.save()
        } else {
            try await draft.update()
        }
    }

    /// Marks `todo` completed (or not).
    public func setCompleted(_ todo: Document<Todo>, _ completed: Bool = true) async throws {
        var todo = todo
        todo[\.completed] = completed
        try await todo.update()
    }

    /// Deletes `todo` and its attachment's bytes in Storage (already gone is fine): the file first, while the
    /// storage rules (`Examples/rules/storage.rules`) can still read the todo's owner.
    public func delete(_ todo: Document<Todo>) async throws { try await todo.delete(deletingFiles: true) }

    /// Attaches the local file at `fileURL` to `todo`: the typed layer uploads it beside the todo's document
    /// (`todos/{id}/{name}` in Storage, typed by its extension) before it writes the todo. An attachment of another
    /// name that it replaces is deleted from Storage.
    /// - Throws: ``TodoError/unreadableFile(_:)`` before sending anything when there is no file to read; Storage's
    ///   or the database's error otherwise.
    public func attach(_ fileURL: URL, to todo: Document<Todo>) async throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: fileURL.path, isDirectory: &isFolder), !isFolder.boolValue,
            FileManager.default.isReadableFile(atPath: fileURL.path)
        else { throw TodoError.unreadableFile(fileURL.path) }
        var todo = todo
        let replaced = todo[\.attachment]
        let file = File(Self.storageReference(of: todo).child(fileURL.lastPathComponent), fileURL: fileURL)
        todo[\.attachment] = file
        try await todo.update()
        if let replaced, replaced.path != file.path { try await replaced.delete() }
    }

    /// Where `todo`'s files live in Storage: the document's path in its app's default bucket.
    public static func storageReference(of todo: Document<Todo>) -> StorageReference {
        Storage.storage(app: todo.reference.firestore.app).reference(withPath: todo.reference.path)
    }
}

/// A todo the app refuses before sending it (the rules would refuse it too).
public enum TodoError: Error, Equatable, CustomStringConvertible {
    /// The title is empty or longer than ``Todo/maximumTitleLength``.
    case invalidTitle
    /// The importance is outside ``Todo/importanceRange``.
    case invalidImportance
    /// No file can be read at the path given to attach.
    case unreadableFile(String)

    static func check(_ todo: Todo) throws {
        guard !todo.title.isEmpty, todo.title.count <= Todo.maximumTitleLength else { throw TodoError.invalidTitle }
        guard Todo.importanceRange.contains(todo.importance) else { throw TodoError.invalidImportance }
    }

    /// What to tell the user.
    public var description: String {
        switch self {
        case .invalidTitle: "A todo needs a title of 1 to \(Todo.maximumTitleLength) characters."
        case .invalidImportance: "Importance goes from 1 to 5 stars."
        case .unreadableFile(let path): "No file to read at \(path)."
        }
    }
}
