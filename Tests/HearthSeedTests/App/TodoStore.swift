// Seed app code as written against the Firebase iOS SDK; the only change is the import
// (was: `import FirebaseFirestore`).
import Foundation
import Hearth

/// A todo as the seed stores it in `todos`.
struct Todo: Codable, Identifiable, Equatable, Sendable {
    @DocumentID var id: String?
    var title: String
    var completed: Bool = false
    var userId: String
    var dueDate: Date
    @ServerTimestamp var createdAt: Timestamp?
}

/// Todos per user, ordered by due date: add, list, update, delete, and a snapshot-listener-driven list.
struct TodoStore: Sendable {
    var todos: CollectionReference { Firestore.firestore().collection("todos") }

    /// Adds a todo; the write is queued and shows in listeners at once, `completion` runs when the server has it.
    @discardableResult
    func add(_ todo: Todo, completion: (@Sendable ((any Error)?) -> Void)? = nil) throws -> String {
        try todos.addDocument(from: todo, completion: completion).documentID
    }

    func list(for userId: String) async throws -> [Todo] {
        let snapshot = try await todos.whereField("userId", isEqualTo: userId).order(by: "dueDate").getDocuments()
        return snapshot.documents.compactMap { try? $0.data(as: Todo.self) }
    }

    func setCompleted(_ todo: Todo, _ completed: Bool) async throws {
        guard let id = todo.id else { return }
        try await todos.document(id).updateData(["completed": completed])
    }

    func rename(_ todo: Todo, to title: String) throws {
        guard let id = todo.id else { return }
        var changed = todo
        changed.title = title
        try todos.document(id).setData(from: changed)
    }

    func delete(_ todo: Todo) async throws {
        guard let id = todo.id else { return }
        try await todos.document(id).delete()
    }

    /// The list screen: one snapshot listener, the list rebuilt from every snapshot.
    func listen(
        for userId: String, onChange: @escaping @Sendable ([Todo], _ hasPendingWrites: Bool) -> Void
    ) -> any ListenerRegistration {
        todos.whereField("userId", isEqualTo: userId).order(by: "dueDate")
            .addSnapshotListener { querySnapshot, error in
                guard let documents = querySnapshot?.documents else {
                    print("Error fetching todos: \(error?.localizedDescription ?? "unknown")")
                    return
                }
                let todos = documents.compactMap { try? $0.data(as: Todo.self) }
                onChange(todos, querySnapshot?.metadata.hasPendingWrites ?? false)
            }
    }
}
