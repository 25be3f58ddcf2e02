import Foundation
import Hearth
import HearthModels
import HearthTodo

/// Draws the list (and the editor) as text; clears the screen first when output is a terminal.
struct TodoScreen {
    let isTerminal = isatty(STDOUT_FILENO) == 1

    static let dayFormat: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy/MM/dd"
        return formatter
    }()

    func draw(title: String, account: String, todos: [Document<Todo>], draft: Document<Todo>?, message: String?) {
        var text = isTerminal ? "\u{1B}[2J\u{1B}[H" : "\n"
        text += "\(title)   (\(account))\n\n"
        if todos.isEmpty { text += "  nothing to do — add one with: a TITLE\n" }
        for (index, todo) in todos.enumerated() {
            let number = String(index + 1).leftPadded(to: 3)
            let check = todo[\.completed] ? "[x]" : "[ ]"
            var line =
                "\(number)  \(check) \(todo.data.stars)  \(Self.dayFormat.string(from: todo[\.date]))  \(todo[\.title])"
            if !todo[\.note].isEmpty { line += " — \(todo[\.note])" }
            text += line + "\n"
            if let file = todo[\.attachment] {
                text += "       attachment: \(file.name) (\(file.mimeType.rawValue))\n"
            }
        }
        text += "\n"
        if let draft {
            text += "Editing (nothing changes elsewhere until you save):\n"
            text += "  title: \(draft[\.title])\n  note:  \(draft[\.note])\n"
            text += "  stars: \(draft.data.stars)\n  date:  \(Self.dayFormat.string(from: draft[\.date]))\n\n"
            text += "t TITLE · n NOTE · s 1-5 · d YYYY-MM-DD · save · cancel\n"
        } else {
            text +=
                "a TITLE [| NOTE | STARS | YYYY-MM-DD] add · e N edit · c N complete · u N undo · x N delete\n"
                + "f N PATH attach a file · q quit\n"
        }
        if let message { text += "! \(message)\n" }
        text += "> "
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Standard input's lines, read on a thread of their own so the main actor stays free to redraw.
    static func inputLines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        Thread.detachNewThread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
        return stream
    }
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}
