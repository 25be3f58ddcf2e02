import Foundation
import HearthTestSupport
import RegexBuilder
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `hearth-chat` binary driven as a script would drive it: lines on standard input, screens on standard output
/// (not a terminal, so each screen follows the last instead of redrawing).
final class ChatTerminalProcess: Sendable {
    let process: Process
    let input: FileHandle
    let outputURL: URL

    init(server: TestServer, label: String) throws {
        let binary = TestServer.packageRoot.appendingPathComponent(".build/debug/hearth-chat").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw HarnessError("No hearth-chat binary at \(binary): run `swift build` first.")
        }
        let state = server.directory.appendingPathComponent("terminals/\(label)")
        outputURL = server.directory.appendingPathComponent("terminal-\(label).txt")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--server", server.baseURL.absoluteString, "--state", state.path]
        let output = try FileHandle(forWritingTo: outputURL)
        process.standardInput = pipe
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Only the child writes the output and reads the pipe: the parent keeps just the pipe's writing end.
        try? output.close()
        try? pipe.fileHandleForReading.close()
        self.process = process
        input = pipe.fileHandleForWriting
    }

    var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }

    /// Types `lines`, each followed by Enter.
    func type(_ lines: String...) throws { try input.write(contentsOf: Data(lines.map { $0 + "\n" }.joined().utf8)) }

    /// Waits (at most 10 s, without blocking a thread) until the output holds `text` after `offset`; returns the
    /// output's length at that moment, for the next wait.
    @discardableResult
    func waitFor(_ text: String, after offset: Int = 0) async -> Int {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let output = self.output
            if output.dropFirst(offset).contains(text) { return output.count }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return output.count
    }

    /// Waits (at most 10 s) for the process to end; `nil` if it did not.
    func exitStatus() async -> Int32? {
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        try? input.close()
        if process.isRunning {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }
}

@Suite("hearth-chat, the terminal UI, driven by a script", .chatServer)
struct ChatTerminalTests {
    @Test("sign up, verify, post, edit, delete and quit through numbered commands and prompts")
    func scriptedSession() async throws {
        let server = try SharedServer.server
        let terminal = try ChatTerminalProcess(server: server, label: "fay")
        let email = uniqueEmail("fay")
        var mark = await terminal.waitFor("1 sign up   2 sign in   3 log in with Facebook   q quit")

        try terminal.type("1", email, "correct horse")
        mark = await terminal.waitFor("\(email) (email not verified)", after: mark)
        try terminal.type("9")
        mark = await terminal.waitFor("Unknown command \"9\"", after: mark)
        try terminal.type("1")
        mark = await terminal.waitFor("✓ Email verified.", after: mark)
        try terminal.type("1", "Hello from a script", "1", "to be deleted")
        mark = await terminal.waitFor("  2  ", after: mark)
        try terminal.type("2", "1", "Hello, edited")
        mark = await terminal.waitFor("✓ Edited.", after: mark)
        try terminal.type("3", "2")
        mark = await terminal.waitFor("✓ Deleted.", after: mark)
        try terminal.type("3", "")
        mark = await terminal.waitFor("Cancelled.", after: mark)
        try terminal.type("q")
        #expect(await terminal.exitStatus() == 0)

        // The last screen: the one remaining post, dated and marked as edited.
        let screens = terminal.output.components(separatedBy: "Hearth Chat · ")
        let last = try #require(screens.last)
        #expect(last.contains("Cancelled."))
        #expect(!last.contains("to be deleted"))
        let line = try #require(last.split(separator: "\n").first { $0.contains("Hello, edited") })
        let date = #/\d{4}/\d{2}/\d{2} \d{2}:\d{2}/#
        let expected = Regex {
            "  1  "
            date
            "  Hello, edited  (edited "
            date
            ")"
        }
        #expect(line.wholeMatch(of: expected) != nil, "\(line)")
        #expect(!terminal.output.contains("correct horse"), "the password is never shown")
    }

    @Test("the session survives a restart of the app; wrong sign-ins say so")
    func restartKeepsTheSession() async throws {
        let server = try SharedServer.server
        let email = uniqueEmail("gus")
        let first = try ChatTerminalProcess(server: server, label: "gus")
        await first.waitFor("1 sign up")
        try first.type("1", email, "correct horse", "1", "1", "before the restart")
        await first.waitFor("before the restart")
        try first.input.close()
        #expect(await first.exitStatus() == 0, "the end of input quits")

        let second = try ChatTerminalProcess(server: server, label: "gus")
        await second.waitFor("before the restart")
        #expect(second.output.contains("· \(email)\n"), "signed in at once, from the saved session")
        try second.type("4", "2", email, "wrong horse")
        await second.waitFor("✗ Wrong email or password.")
        try second.type("q")
        #expect(await second.exitStatus() == 0)
        #expect(second.output.contains("✗ Wrong email or password."))
    }

    @Test("log in with Facebook: the link the app prints, the development picker in a browser, then posting")
    func facebookThroughTheDevPicker() async throws {
        let server = try SharedServer.server
        let terminal = try ChatTerminalProcess(server: server, label: "fb")
        let email = uniqueEmail("fb")
        var mark = await terminal.waitFor("3 log in with Facebook")
        try terminal.type("3")
        let prefix = "Open this link in a browser to log in with Facebook: "
        mark = await terminal.waitFor(prefix, after: mark)
        let printed = try #require(terminal.output.components(separatedBy: prefix).last?.split(separator: "\n").first)
        let link = try #require(URL(string: String(printed)))
        #expect(link.path == "/emulator/auth/handler", "\(link)")

        // The browser: the picker's page, then its form for a new account; URLSession follows the redirect back to
        // the app's listener on 127.0.0.1, as a browser would.
        let (page, _) = try await URLSession.shared.data(from: link)
        #expect(String(decoding: page, as: UTF8.self).contains("Sign in with facebook.com"))
        let sessionID = try #require(
            URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "sessionId" }?
                .value)
        var form = URLRequest(url: server.baseURL.appendingPathComponent("emulator/auth/handler"))
        form.httpMethod = "POST"
        form.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let encodedEmail = email.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? email
        form.httpBody = Data("sessionId=\(sessionID)&email=\(encodedEmail)&displayName=Fay+Book".utf8)
        let (landed, response) = try await URLSession.shared.data(for: form)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: landed, as: UTF8.self).contains("You can close this window"))

        // The picker's accounts come with their address verified, as the provider vouches for it: posting opens.
        mark = await terminal.waitFor("✓ Logged in with Facebook.", after: mark)
        #expect(terminal.output.contains("· \(email)\n"), "\(terminal.output.suffix(800))")
        try terminal.type("1", "Hello from Facebook")
        mark = await terminal.waitFor("✓ Posted.", after: mark)
        #expect(terminal.output.dropFirst(mark - 200).contains("Hello from Facebook"))
        try terminal.type("q")
        #expect(await terminal.exitStatus() == 0)
    }

    @Test("set avatar: a numbered command asks for a file path; the chat screen shows the picture's type and size")
    func setAvatar() async throws {
        let server = try SharedServer.server
        let terminal = try ChatTerminalProcess(server: server, label: "avatar")
        let email = uniqueEmail("avatar")
        let picture = try pictureFile(server.directory.appendingPathComponent("pictures"), "me.png", size: 12 * 1024)
        var mark = await terminal.waitFor("1 sign up")
        try terminal.type("1", email, "correct horse", "1")
        mark = await terminal.waitFor("avatar: none", after: mark)
        #expect(terminal.output.contains("4 sign out   5 set avatar   q quit"))
        try terminal.type("5", server.directory.appendingPathComponent("missing.png").path)
        mark = await terminal.waitFor("✗ No file to read at", after: mark)
        try terminal.type("5", picture.path)
        mark = await terminal.waitFor("✓ Avatar set.", after: mark)
        let screen = try #require(terminal.output.components(separatedBy: "Hearth Chat · ").last)
        #expect(screen.contains("· \(email)\navatar: image/png, 12 KB\n"), "\(screen)")
        try terminal.type("q")
        #expect(await terminal.exitStatus() == 0)

        // Started again, the app reads the avatar back from Storage.
        let again = try ChatTerminalProcess(server: server, label: "avatar")
        await again.waitFor("avatar: image/png, 12 KB")
        #expect(again.output.contains("avatar: image/png, 12 KB"), "\(again.output.suffix(600))")
        try again.type("q")
        #expect(await again.exitStatus() == 0)
    }
}
