import Foundation
import Hearth
import HearthModels
import HearthTodo
import Observation

/// The terminal UI's controller: reads commands, calls the shared ``TodoListModel`` and redraws whenever the model
/// changes — also when another device changed the list.
@MainActor
final class TodoTerminal {
    let model: TodoListModel
    let screen: TodoScreen
    let account: String
    private var draft: Document<Todo>?
    private var message: String?

    init(model: TodoListModel, screen: TodoScreen, account: String) {
        self.model = model
        self.screen = screen
        self.account = account
    }

    static let dayInput: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }()

    func run(lines: AsyncStream<String>) async {
        model.start()
        redrawOnChange()
        redraw()
        for await line in lines {
            guard await handle(line.trimmingCharacters(in: .whitespaces)) else { break }
            redraw()
        }
        model.stop()
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    private func redraw() {
        // A stopped list stays flagged: what it shows is no longer live.
        let notice = message ?? model.failure.map { "the list stopped updating: \($0)" }
        screen.draw(title: model.title, account: account, todos: model.todos, draft: draft, message: notice)
        message = nil
    }

    /// Redraws after every change of what the screen shows, re-arming the observation each time.
    private func redrawOnChange() {
        withObservationTracking {
            _ = model.todos
            _ = model.failure
        } onChange: {
            Task { @MainActor [weak self] in
                guard let self else { return }
                self.redraw()
                self.redrawOnChange()
            }
        }
    }

    /// Runs one command; `false` to quit.
    private func handle(_ line: String) async -> Bool {
        let (command, argument) = Self.split(line)
        do {
            if var editing = draft {
                switch command {
                case "t": editing[\.title] = argument
                case "n": editing[\.note] = argument
                case "s": editing[\.importance] = try Self.stars(argument)
                case "d": editing[\.date] = try Self.day(argument)
                case "save":
                    try await model.save(editing)
                    draft = nil
                    return true
                case "cancel":
                    draft = nil
                    message = "edit cancelled"
                    return true
                case "q": return false
                default: message = "editing: t, n, s, d, save or cancel"
                }
                draft = editing
                return true
            }
            switch command {
            case "": break
            case "q", "quit": return false
            case "a": try await add(argument)
            case "e": draft = model.draft(for: try todo(argument))
            case "c": try await model.setCompleted(try todo(argument), true)
            case "u": try await model.setCompleted(try todo(argument), false)
            case "x": try await model.delete(try todo(argument))
            case "f": try await attach(argument)
            default: message = "unknown command \"\(command)\""
            }
        } catch {
            message = "\(error)"
        }
        return true
    }

    /// `a TITLE | NOTE | STARS | YYYY-MM-DD`, everything after the title optional.
    private func add(_ argument: String) async throws {
        let parts = argument.split(separator: "|", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var todo = model.newDraft(title: parts.first ?? "")
        if parts.count > 1 { todo[\.note] = parts[1] }
        if parts.count > 2, !parts[2].isEmpty { todo[\.importance] = try Self.stars(parts[2]) }
        if parts.count > 3, !parts[3].isEmpty { todo[\.date] = try Self.day(parts[3]) }
        try await model.save(todo)
    }

    /// `f N PATH`: attaches the local file at PATH to todo N.
    private func attach(_ argument: String) async throws {
        let (number, path) = Self.split(argument)
        guard !path.isEmpty else { throw Problem("attach with: f N PATH") }
        let todo = try todo(number)
        try await model.attach(URL(fileURLWithPath: (path as NSString).expandingTildeInPath), to: todo)
        message = "attached \((path as NSString).lastPathComponent) to \"\(todo[\.title])\""
    }

    private func todo(_ argument: String) throws -> Document<Todo> {
        guard let number = Int(argument), model.todos.indices.contains(number - 1) else {
            throw Problem("no todo numbered \"\(argument)\"")
        }
        return model.todos[number - 1]
    }

    private static func split(_ line: String) -> (String, String) {
        guard let space = line.firstIndex(of: " ") else { return (line, "") }
        return (String(line[..<space]), line[space...].trimmingCharacters(in: .whitespaces))
    }

    private static func stars(_ text: String) throws -> Int {
        guard let stars = Int(text), Todo.importanceRange.contains(stars) else { throw Problem("stars go from 1 to 5") }
        return stars
    }

    private static func day(_ text: String) throws -> Date {
        guard let date = dayInput.date(from: text) else { throw Problem("dates look like 2026-12-24") }
        return date
    }

    struct Problem: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
