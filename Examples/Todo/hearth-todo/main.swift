// hearth-todo: the Todo example as a terminal UI. Run a server (`make run`, or with the example's rules and index:
// see docs/models.md), then `swift run hearth-todo --email ann@example.com --password 'correct horse'`.
// Two terminals signed in as the same user see each other's changes live.
import Foundation
import Hearth
import HearthTodo

let options: TerminalOptions
do {
    options = try TerminalOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("hearth-todo: \(error)\n\n\(TerminalOptions.usage)\n".utf8))
    exit(2)
}
if options.help {
    print(TerminalOptions.usage)
    exit(0)
}

HearthApp.configure(
    options: HearthOptions(
        serverURL: options.server, projectID: options.project, apiKey: "hearth-todo",
        storageDirectory: options.storage))
let app = HearthApp.app()!
let screen = TodoScreen()
do {
    let user = try await TodoAccount.signIn(Auth.auth(app: app), email: options.email, password: options.password)
    let model = TodoListModel(firestore: Firestore.firestore(app: app), userID: user.uid)
    let terminal = TodoTerminal(model: model, screen: screen, account: options.email)
    await terminal.run(lines: TodoScreen.inputLines())
} catch {
    FileHandle.standardError.write(Data("hearth-todo: \(error)\n".utf8))
    exit(1)
}
