import Foundation
import Hearth
import HearthModels
import HearthTestSupport
import HearthTodo
import Testing

/// The Todo example's view model against a real server running the example's rules and index.
@Suite("Todo view model against a real server")
@MainActor
struct TodoListModelTests {
    static let arguments = [
        "--rules", TestServer.packageRoot.appendingPathComponent("Examples/Todo/todo.rules").path,
        "--indexes", TestServer.packageRoot.appendingPathComponent("Examples/Todo/todo.indexes.json").path,
        "--storage-rules", TestServer.packageRoot.appendingPathComponent("Examples/rules/storage.rules").path,
    ]

    /// A signed-in view model for `email` on its own app (its own connection, as another device would have).
    static func model(_ server: TestServer, _ email: String, label: String = "device") async throws -> TodoListModel {
        let app = server.app(label)
        let user = try await TodoAccount.signIn(Auth.auth(app: app), email: email, password: "correct horse")
        let model = TodoListModel(firestore: Firestore.firestore(app: app), userID: user.uid)
        model.start()
        return model
    }

    static func loaded(_ models: [TodoListModel]) -> Bool { models.allSatisfy { $0.isLoaded } }

    static func day(_ text: String) -> Date { ISO8601DateFormatter().date(from: "\(text)T12:00:00Z")! }

    @Test("add, order, count in the title, edit with cancel, complete, delete")
    func oneDevice() async throws {
        try await withServer(arguments: Self.arguments) { server in
            let model = try await Self.model(server, uniqueEmail())
            defer { model.stop() }
            #expect(await eventually { await model.isLoaded })
            #expect(model.title == "0 Todo Items")
            try await model.save(model.newDraft(title: "Buy milk", date: Self.day("2026-12-01")))
            var report = model.newDraft(title: "Write report", date: Self.day("2026-12-03"))
            report[\.importance] = 5
            report[\.note] = "for Monday"
            try await model.save(report)
            try await model.save(model.newDraft(title: "Call Bob", date: Self.day("2026-12-01")))
            #expect(await eventually { await model.title == "3 Todo Items" })
            // Latest date first; on the same date the most recently changed first.
            #expect(model.todos.map { $0[\.title] } == ["Write report", "Call Bob", "Buy milk"])
            #expect(model.todos[0].data.stars == "★★★★★" && model.todos[1].data.stars == "★★★☆☆")

            // Editing a copy and cancelling leaves the list as it was.
            var draft = model.draft(for: model.todos[2])
            draft[\.title] = "Buy oat milk"
            draft[\.importance] = 1
            #expect(model.todos[2][\.title] == "Buy milk")
            // Saving it does change it, and moves it ahead of the other todo of its day.
            try await model.save(draft)
            #expect(
                await eventually {
                    await model.todos.map { $0[\.title] } == ["Write report", "Buy oat milk", "Call Bob"]
                })
            #expect(model.todos[1][\.importance] == 1)

            try await model.setCompleted(model.todos[0])
            #expect(await eventually { await model.todos.first?[\.completed] == true })
            try await model.delete(model.todos[2])
            #expect(await eventually { await model.title == "2 Todo Items" })
            try await model.delete(model.todos[1])
            #expect(await eventually { await model.title == "1 Todo Item" })

            await #expect(throws: TodoError.invalidTitle) { try await model.save(model.newDraft(title: "   ")) }
            var loud = model.newDraft(title: "Too loud")
            loud[\.importance] = 6
            await #expect(throws: TodoError.invalidImportance) { try await model.save(loud) }
        }
    }

    @Test("two devices of one user see each other's changes live; another user sees and reaches none of them")
    func twoDevices() async throws {
        try await withServer(arguments: Self.arguments) { server in
            let email = uniqueEmail()
            let laptop = try await Self.model(server, email, label: "laptop")
            let phone = try await Self.model(server, email, label: "phone")
            let stranger = try await Self.model(server, uniqueEmail(), label: "stranger")
            defer {
                laptop.stop()
                phone.stop()
                stranger.stop()
            }
            #expect(await eventually { await Self.loaded([laptop, phone, stranger]) })

            try await laptop.save(laptop.newDraft(title: "From the laptop", date: Self.day("2026-12-02")))
            #expect(await eventually { await phone.todos.map { $0[\.title] } == ["From the laptop"] })
            try await phone.save(phone.newDraft(title: "From the phone", date: Self.day("2026-12-05")))
            #expect(await eventually { await laptop.title == "2 Todo Items" })
            #expect(laptop.todos.map { $0[\.title] } == ["From the phone", "From the laptop"])

            // An edit cancelled on the phone never reaches the laptop; a saved one does.
            var draft = phone.draft(for: phone.todos[1])
            draft[\.title] = "Cancelled on the phone"
            try await phone.setCompleted(phone.todos[0])
            #expect(await eventually { await laptop.todos.first?[\.completed] == true })
            #expect(laptop.todos[1][\.title] == "From the laptop")
            draft[\.title] = "Renamed on the phone"
            try await phone.save(draft)
            #expect(
                await eventually {
                    await laptop.todos.map { $0[\.title] } == ["From the phone", "Renamed on the phone"]
                })

            // The phone edits a todo the laptop then deletes: saving the edit says so instead of bringing it back.
            var stale = phone.draft(for: phone.todos[0])
            stale[\.note] = "edited while deleted elsewhere"
            try await laptop.delete(laptop.todos[0])
            #expect(await eventually { await phone.title == "1 Todo Item" })
            await #expect(throws: FirestoreErrorCode.self) { try await phone.save(stale) }
            #expect(phone.todos.count == 1)

            // The other user: an empty list, and the rules refuse reading or changing the todo directly.
            #expect(stranger.todos.isEmpty && stranger.title == "0 Todo Items")
            let theirs = laptop.todos[0]
            let strangerDB = Firestore.firestore(app: server.app("stranger-direct"))
            _ = try await Auth.auth(app: strangerDB.app).signInAnonymously()
            let reference = strangerDB.collection(TodoListModel.collectionID).document(theirs.documentID)
            await #expect(throws: FirestoreErrorCode.self) { try await Document<Todo>.get(reference) }
            var hijack = Document(theirs.data, reference: reference)
            hijack[\.title] = "Hijacked"
            await #expect(throws: FirestoreErrorCode.self) { try await hijack.update() }
            await #expect(throws: FirestoreErrorCode.self) { try await hijack.delete() }
            #expect(laptop.todos.first?[\.title] == "Renamed on the phone")
        }
    }

    @Test("the rules refuse a todo for someone else, of the wrong shape, or read without the owner filter")
    func rules() async throws {
        try await withServer(arguments: Self.arguments) { server in
            let app = server.app("direct")
            let user = try await TodoAccount.signIn(Auth.auth(app: app), email: uniqueEmail(), password: "pw-123456")
            let todos = Firestore.firestore(app: app).collection(TodoListModel.collectionID)
            let valid = Todo(owner: user.uid, title: "Valid", date: Self.day("2026-12-01"))
            try await Document(valid, in: todos).save()
            var forOther = valid
            forOther.owner = "someone-else"
            var sixStars = valid
            sixStars.importance = 6
            var untitled = valid
            untitled.title = ""
            for todo in [forOther, sixStars, untitled] {
                // The view model would refuse these before sending; written directly, the server refuses them.
                await #expect(throws: FirestoreErrorCode.self) { try await Document(todo, in: todos).save() }
            }
            await #expect(throws: FirestoreErrorCode.self) { try await DocumentList<Todo>(todos).get() }
            let own = try await DocumentList<Todo>(todos).where("owner", isEqualTo: user.uid).get()
            #expect(own.after.map { $0[\.title] } == ["Valid"])
        }
    }
}
