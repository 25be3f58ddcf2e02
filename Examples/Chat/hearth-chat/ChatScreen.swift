import HearthChatCore

/// What the terminal shows, as plain text: a header, the list or the verification step, the commands, the last
/// outcome and the prompt. Pure: the same state always draws the same screen.
@MainActor
struct ChatScreen {
    let model: ChatViewModel
    let server: String
    let notice: String?
    let prompt: String

    static let rule = String(repeating: "-", count: 72)

    var text: String {
        var lines: [String] = []
        switch model.phase {
        case .signedOut:
            lines.append("Hearth Chat · \(server) · not signed in")
            lines.append(Self.rule)
            lines.append("Sign up with an email address and a password, sign in, or log in with Facebook.")
            lines.append(Self.rule)
            lines.append(" 1 sign up   2 sign in   3 log in with Facebook   q quit")
        case .awaitingVerification(let email):
            lines.append("Hearth Chat · \(server) · \(email) (email not verified)")
            lines.append(Self.rule)
            lines.append("A verification mail was sent to \(email).")
            lines.append("Posting opens once the address is verified: open the link in the mail.")
            lines.append(Self.rule)
            lines.append(" 1 open the link from the dev server's outbox   2 I opened it: check again")
            lines.append(" 3 send the mail again   4 sign out   q quit")
        case .chatting(let email):
            lines.append("Hearth Chat · \(server) · \(email)")
            lines.append("avatar: " + (model.avatar?.summary ?? (model.avatarLoaded ? "none" : "…")))
            lines.append(Self.rule)
            if !model.postsLoaded {
                lines.append("Loading your posts…")
            } else if model.posts.isEmpty {
                lines.append("No posts yet.")
            }
            for (index, post) in model.posts.enumerated() {
                var line = "\(String(index + 1).leftPadded(3))  \(model.dateText(post.createdAt))  \(post.text)"
                if let edited = post.editedAt { line += "  (edited \(model.dateText(edited)))" }
                lines.append(line)
            }
            lines.append(Self.rule)
            lines.append(" 1 post   2 edit   3 delete   4 sign out   5 set avatar   q quit")
        }
        if let notice { lines.append(notice) }
        return lines.joined(separator: "\n") + "\n" + prompt
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
