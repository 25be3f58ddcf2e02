import Foundation
import Hearth
import HearthChatCore

/// `hearth-chat`: the chat example in a terminal.
///
///     swift run hearth-chat [--server URL] [--project ID] [--state DIR]
///
/// `--server` defaults to `$HEARTH_SERVER` or `http://127.0.0.1:8080` (`make run`); `--state` is where the session
/// is kept (two terminals signed in as different users need different directories).
@main
struct HearthChat {
    @MainActor
    static func main() async {
        var server = ProcessInfo.processInfo.environment["HEARTH_SERVER"] ?? "http://127.0.0.1:8080"
        var project = "demo"
        var state: URL?
        var arguments = CommandLine.arguments.dropFirst()
        while let flag = arguments.popFirst() {
            if flag == "--help" || flag == "-h" {
                print("usage: hearth-chat [--server URL] [--project ID] [--state DIR]")
                return
            }
            guard let value = arguments.popFirst(), ["--server", "--project", "--state"].contains(flag) else {
                FileHandle.standardError.write(Data("hearth-chat: unknown or incomplete option \(flag)\n".utf8))
                exit(2)
            }
            switch flag {
            case "--server": server = value
            case "--project": project = value
            default: state = URL(fileURLWithPath: value, isDirectory: true)
            }
        }
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https" else {
            FileHandle.standardError.write(Data("hearth-chat: --server must be an http(s) URL\n".utf8))
            exit(2)
        }
        // A named app: its saved session (auth-hearth-chat.<project>.json) is not shared with other Hearth apps
        // that keep theirs in the same default directory.
        HearthApp.configure(
            name: "hearth-chat",
            options: HearthOptions(serverURL: url, projectID: project, apiKey: "hearth-chat", storageDirectory: state))
        guard let app = HearthApp.app(name: "hearth-chat") else { exit(1) }
        await ChatTerminal(model: ChatViewModel(app: app), server: server).run()
    }
}
