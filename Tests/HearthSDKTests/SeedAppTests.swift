import Foundation
import Hearth
import Synchronization
import Testing

// App code in the shape the Firebase iOS seeds use (only the import differs): a todo store on Firestore and a
// per-user post store on the tree, driven through the public API exactly as an app would.

struct Todo: Codable, Identifiable, Equatable {
    @DocumentID var id: String?
    var title: String
    var done: Bool
    var due: Date
    var owner: String
    @ServerTimestamp var createdAt: Timestamp?
}

/// The seeds' todo repository.
final class TodoRepository: Sendable {
    let db: Firestore
    let uid: String
    init(db: Firestore, uid: String) {
        self.db = db
        self.uid = uid
    }

    var todos: CollectionReference { db.collection("users").document(uid).collection("todos") }

    func add(_ title: String, due: Date) async throws -> String {
        try await todos.addDocument(from: Todo(title: title, done: false, due: due, owner: uid)).documentID
    }

    func list() async throws -> [Todo] {
        try await todos.order(by: "due").getDocuments().documents.map { try $0.data(as: Todo.self) }
    }

    func toggle(_ id: String, done: Bool) async throws { try await todos.document(id).updateData(["done": done]) }
    func delete(_ id: String) async throws { try await todos.document(id).delete() }
}

@Suite("A Firebase-style app against a real server", .sharedServer)
struct SeedAppTests {
    @Test func signUpLoginLogoutAndTodos() async throws {
        let app = try SharedServer.server.app("seed")
        let auth = Auth.auth(app: app)
        let email = uniqueEmail()
        try await auth.createUser(withEmail: email, password: "s3cret-pass")
        try auth.signOut()
        let user = try await auth.signIn(withEmail: email, password: "s3cret-pass").user
        let changeRequest = user.createProfileChangeRequest()
        changeRequest.displayName = "Seed User"
        try await changeRequest.commitChanges()
        #expect(user.displayName == "Seed User")

        let repository = TodoRepository(db: Firestore.firestore(app: app), uid: user.uid)
        let live = Mutex<[[String]]>([])
        let registration = repository.todos.order(by: "due").addSnapshotListener { snapshot, _ in
            guard let snapshot else { return }
            live.withLock { $0.append(snapshot.documents.compactMap { try? $0.data(as: Todo.self).title }) }
        }
        defer { registration.remove() }
        let now = Date()
        let later = try await repository.add("later", due: now.addingTimeInterval(3600))
        let sooner = try await repository.add("sooner", due: now.addingTimeInterval(60))
        #expect(try await repository.list().map(\.title) == ["sooner", "later"])
        try await repository.toggle(sooner, done: true)
        #expect(try await repository.list().first?.done == true)
        #expect(try await repository.list().allSatisfy { $0.createdAt != nil && $0.owner == user.uid })
        try await repository.delete(later)
        #expect(try await repository.list().map(\.id) == [sooner])
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, live.withLock({ $0.last }) != ["sooner"] {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(live.withLock { $0.last } == ["sooner"], "the listener-driven list follows every change")
        try auth.signOut()
        #expect(auth.currentUser == nil)
    }

    @Test func postsPerUserOnTheTree() async throws {
        let app = try SharedServer.server.app("seed-tree")
        let user = try await Auth.auth(app: app).signInAnonymously().user
        let posts = Database.database(app: app).reference().child("user-posts").child(user.uid)
        let post = posts.childByAutoId()
        try await post.setValue(["title": "Hello", "body": "First", "at": ServerValue.timestamp()])
        try await posts.parent?.parent?.child("posts").child(post.key ?? "").setValue([
            "uid": user.uid, "title": "Hello",
        ])
        try await post.updateChildValues(["body": "Edited"])
        let read = try await post.getData()
        #expect(read.childSnapshot(forPath: "body").value as? String == "Edited")
        #expect(try await posts.getData().childrenCount == 1)
        try await post.removeValue()
        #expect(!(try await posts.getData().exists()))
    }
}
