import Foundation
import Hearth
import HearthChatCore
import Observation

/// The line-oriented terminal front end: draws ``ChatScreen`` whenever the model or the input state changes, and
/// turns numbered commands and the answers to their prompts into view-model actions. Works the same typed by hand
/// or driven by a script (`tmux send-keys`, a pipe).
@MainActor
final class ChatTerminal {
    private enum Event: Sendable {
        case line(String?)
        case changed
    }

    /// A command waiting for the answers to its prompts; an empty answer cancels it.
    private struct Form {
        var prompts: [(label: String, secret: Bool)]
        var answers: [String] = []
        let submit: @MainActor ([String]) async throws(ChatError) -> String
    }

    private let model: ChatViewModel
    private let server: String
    private let redraws: Bool
    private var notice: String?
    private var form: Form?
    private let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation

    init(model: ChatViewModel, server: String) {
        self.model = model
        self.server = server
        redraws = LineInput.isTerminal
        (events, eventSink) = AsyncStream.makeStream(of: Event.self)
    }

    /// Runs until `q` or the end of input.
    func run() async {
        let sink = eventSink
        LineInput.start { sink.yield(.line($0)) }
        draw()
        for await event in events {
            switch event {
            case .changed:
                draw()
            case .line(nil):
                finish()
                return
            case .line(let text?):
                if form == nil && text.trimmingCharacters(in: .whitespaces) == "q" {
                    finish()
                    return
                }
                await handle(text)
                draw()
            }
        }
    }

    private func finish() {
        LineInput.setEcho(true)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }

    /// Draws the screen, and asks to be told about the next model change that would alter it.
    private func draw() {
        let prompt = form.map { $0.prompts[$0.answers.count] }
        LineInput.setEcho(!(prompt?.secret ?? false))
        let sink = eventSink
        let text = withObservationTracking {
            ChatScreen(model: model, server: server, notice: notice, prompt: prompt.map { "\($0.label): " } ?? "> ")
                .text
        } onChange: {
            sink.yield(.changed)
        }
        // ESC[H ESC[2J: cursor home and clear, so a terminal shows one screen; a pipe gets the screens in sequence.
        FileHandle.standardOutput.write(Data((redraws ? "\u{1B}[H\u{1B}[2J" + text : "\n" + text).utf8))
    }

    private func handle(_ line: String) async {
        if var form {
            let answer = line.trimmingCharacters(in: .whitespaces)
            guard !answer.isEmpty else {
                self.form = nil
                notice = "Cancelled."
                return
            }
            form.answers.append(answer)
            await advance(form)
            return
        }
        notice = nil
        let command = line.trimmingCharacters(in: .whitespaces)
        guard !command.isEmpty else { return }
        guard let chosen = commands(for: model.phase)[command] else {
            notice = "✗ Unknown command \"\(command)\": type one of the numbers below."
            return
        }
        await advance(chosen)
    }

    /// Asks the next prompt, or runs the command once every prompt is answered.
    private func advance(_ form: Form) async {
        guard form.answers.count == form.prompts.count else {
            self.form = form
            return
        }
        self.form = nil
        do {
            notice = "✓ " + (try await form.submit(form.answers))
        } catch {
            notice = "✗ \(error)"
        }
    }

    private func commands(for phase: ChatViewModel.Phase) -> [String: Form] {
        let model = self.model
        switch phase {
        case .signedOut:
            return [
                "1": Form(prompts: [("Email", false), ("Password", true)]) { answers throws(ChatError) in
                    try await model.signUp(email: answers[0], password: answers[1])
                    return "Account created; a verification mail was sent."
                },
                "2": Form(prompts: [("Email", false), ("Password", true)]) { answers throws(ChatError) in
                    try await model.signIn(email: answers[0], password: answers[1])
                    return "Signed in."
                },
                "3": Form(prompts: []) { _ throws(ChatError) in
                    try await model.signInWithFacebook(opening: LinkPrinter())
                    return "Logged in with Facebook."
                },
            ]
        case .awaitingVerification:
            return [
                "1": Form(prompts: []) { _ throws(ChatError) in
                    try await model.verifyFromDevOutbox()
                    return "Email verified."
                },
                "2": Form(prompts: []) { _ throws(ChatError) in
                    try await model.checkVerification()
                    return "Email verified."
                },
                "3": Form(prompts: []) { _ throws(ChatError) in
                    try await model.resendVerification()
                    return "Verification mail sent again."
                },
                "4": Self.signOut(model),
            ]
        case .chatting:
            return [
                "1": Form(prompts: [("Message", false)]) { answers throws(ChatError) in
                    try await model.post(answers[0])
                    return "Posted."
                },
                "2": Form(prompts: [("Post number", false), ("New text", false)]) { answers throws(ChatError) in
                    try await model.edit(try Self.post(answers[0], in: model), text: answers[1])
                    return "Edited."
                },
                "3": Form(prompts: [("Post number", false)]) { answers throws(ChatError) in
                    try await model.delete(try Self.post(answers[0], in: model))
                    return "Deleted."
                },
                "4": Self.signOut(model),
                "5": Form(prompts: [("Picture file path", false)]) { answers throws(ChatError) in
                    try await model.setAvatar(fromFile: answers[0])
                    return "Avatar set."
                },
            ]
        }
    }

    private static func signOut(_ model: ChatViewModel) -> Form {
        Form(prompts: []) { _ throws(ChatError) in
            try model.signOut()
            return "Signed out."
        }
    }

    /// The ID of the post shown under `number`.
    private static func post(_ number: String, in model: ChatViewModel) throws(ChatError) -> String {
        guard let index = Int(number), model.posts.indices.contains(index - 1) else { throw .noSuchPost }
        return model.posts[index - 1].id
    }
}

/// Shows a provider's sign-in page as a line to open in a browser: the terminal has no web view. The sign-in comes
/// back to the app by itself once the browser is done.
struct LinkPrinter: AuthUIDelegate {
    func openAuthURL(_ url: URL) {
        FileHandle.standardOutput.write(
            Data("\nOpen this link in a browser to log in with Facebook: \(url.absoluteString)\n".utf8))
    }
}
