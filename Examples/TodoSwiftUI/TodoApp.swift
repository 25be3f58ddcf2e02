// The Todo example as a SwiftUI app, on the same view model as the terminal UI (HearthTodo.TodoListModel).
// Apple platforms only: `swift run hearth-todo-swiftui` on macOS against `make run`; on Linux it only says so.
#if canImport(SwiftUI)
import Foundation
import Hearth
import HearthTodo
import SwiftUI

@main
struct TodoApp: App {
    @State private var session = TodoSession()

    init() {
        let server = ProcessInfo.processInfo.environment["HEARTH_SERVER"] ?? "http://127.0.0.1:8080"
        HearthApp.configure(
            options: HearthOptions(serverURL: URL(string: server)!, projectID: "demo", apiKey: "hearth-todo"))
    }

    var body: some Scene {
        WindowGroup {
            if let model = session.model {
                TodoListView(model: model)
            } else {
                SignInView(session: session)
            }
        }
    }
}

/// Who is signed in, and their todo list.
@MainActor
@Observable
final class TodoSession {
    var model: TodoListModel?
    var failure: String?

    func signIn(email: String, password: String) async {
        do {
            let app = HearthApp.app()!
            let user = try await TodoAccount.signIn(Auth.auth(app: app), email: email, password: password)
            let model = TodoListModel(firestore: Firestore.firestore(app: app), userID: user.uid)
            model.start()
            self.model = model
        } catch {
            failure = "\(error)"
        }
    }
}
#else
/// Without SwiftUI there is no app to show; the terminal UI is `hearth-todo`.
@main
enum TodoApp {
    static func main() {
        print("hearth-todo-swiftui needs SwiftUI (macOS or iOS); on this platform run hearth-todo instead.")
    }
}
#endif
