import Foundation
import HearthCore
import HearthTesting
import Testing

/// Development mode's provider picker at `/emulator/auth/handler`: a browser sign-in with a provider nobody set up
/// lists its accounts and makes new ones, so "Log in with Facebook" works without a Facebook app.
@Suite("Development provider picker")
struct DevProviderPickerTests {
    static let continueURI = "http://localhost:5000/cb"

    /// Starts a browser sign-in; returns the picker's path and the session ID.
    static func start(_ client: HTTPClient, _ server: HearthProcess) async throws -> (path: String, sessionID: String) {
        let started = try expectOK(
            await client.accounts("createAuthUri", ["providerId": "facebook.com", "continueUri": .string(continueURI)]))
        let authURI = try #require(started["authUri"]?.stringValue)
        let sessionID = try #require(started["sessionId"]?.stringValue)
        #expect(authURI.hasPrefix(server.baseURL + "/emulator/auth/handler?providerId=facebook.com&sessionId="))
        return (String(authURI.dropFirst(server.baseURL.count)), sessionID)
    }

    /// POSTs the picker's form without following the redirect; returns the `Location`.
    static func choose(_ server: HearthProcess, _ form: String) throws -> String {
        let socket = try RawSocket(port: server.port)
        try socket.send(
            "POST /emulator/auth/handler HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: \(form.utf8.count)\r\nConnection: close\r\n\r\n\(form)")
        let reply = socket.readAll()
        #expect(reply.status == 303, "\(reply.text.prefix(500))")
        let location = reply.text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("location: ") }
        return String(try #require(location).dropFirst("location: ".count))
    }

    static func finish(_ client: HTTPClient, _ location: String, _ sessionID: String) async throws -> JSONValue {
        try expectOK(
            await client.accounts(
                "signInWithIdp",
                ["requestUri": .string(location), "sessionId": .string(sessionID), "returnSecureToken": true]))
    }

    @Test("a new account, then the same account picked from the list")
    func newThenExisting() async throws {
        try await withHearth { server in
            let client = server.client
            let first = try await Self.start(client, server)
            let page = try await client.get(first.path)
            #expect(page.status == 200)
            #expect(page.text.contains("Sign in with facebook.com"))
            #expect(page.text.contains("Add a new account"))
            let location = try Self.choose(
                server, "sessionId=\(first.sessionID)&email=picker%40example.com&displayName=Pat+Picker")
            #expect(location.hasPrefix(Self.continueURI + "?code="))
            let created = try await Self.finish(client, location, first.sessionID)
            #expect(created["isNewUser"] == true)
            #expect(created["providerId"] == "facebook.com")
            #expect(created["email"] == "picker@example.com")
            #expect(created["displayName"] == "Pat Picker")
            let uid = try #require(created["localId"]?.stringValue)

            let second = try await Self.start(client, server)
            let listed = try await client.get(second.path)
            #expect(listed.text.contains("Pat Picker · picker@example.com"))
            let marker = "name=\"rawId\" value=\""
            let rawID = try #require(
                listed.text.components(separatedBy: marker).dropFirst().first?.prefix { $0 != "\"" })
            let again = try await Self.finish(
                client, try Self.choose(server, "sessionId=\(second.sessionID)&rawId=\(rawID)"), second.sessionID)
            #expect(again["isNewUser"] == false)
            #expect(again["localId"]?.stringValue == uid)
            // The session ended with the sign-in: the picker no longer serves it.
            #expect(try await client.get(second.path).status == 400)
        }
    }

    @Test("outside development mode there is no picker")
    func productionHasNoPicker() async throws {
        var options = HearthProcess.Options()
        options.dev = false
        options.extraArguments = ["--rules", OpenRules.path]
        try await withHearth(options) { server in
            #expect(try await server.client.get("/emulator/auth/handler?sessionId=x").status == 404)
            expectAuthError(
                try await server.client.accounts(
                    "createAuthUri", ["providerId": "facebook.com", "continueUri": .string(Self.continueURI)]),
                "OPERATION_NOT_ALLOWED")
        }
    }
}
