public import Foundation
import HearthCore

/// Opens the provider's sign-in page for ``OAuthProvider/getCredentialWith(_:completion:)`` — Firebase's
/// `AuthUIDelegate`, which presents a view controller; a Hearth app (a terminal, a desktop app, a test) says how to
/// show a URL instead.
public protocol AuthUIDelegate: Sendable {
    /// Shows `url` to the user (a browser, or a line to copy); the sign-in comes back to the app by itself.
    func openAuthURL(_ url: URL)
}

/// Opens the URL with the system's opener (`open` on macOS, `xdg-open` on Linux).
struct SystemURLOpener: AuthUIDelegate {
    func openAuthURL(_ url: URL) {
        #if os(macOS) || os(Linux)
        let process = Process()
        #if os(macOS)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/open")
        process.arguments = [url.absoluteString]
        #else
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", url.absoluteString]
        #endif
        try? process.run()
        #endif
    }
}

extension OAuthProvider {
    /// How long a browser sign-in may take before it counts as cancelled.
    static let browserTimeout: Duration = .seconds(300)

    /// Signs in with the provider in a browser and hands back the credential for ``Auth/signIn(with:)`` — what
    /// Firebase's `getCredentialWith(_:)` does. The server's `accounts:createAuthUri` gives the provider's page (in
    /// development mode, the provider picker at `/emulator/auth/handler`); its last redirect comes back to a
    /// one-shot listener on `127.0.0.1`, and the server exchanges that redirect's code at sign-in.
    /// - Parameter uiDelegate: how to show the page; `nil` opens it with the system's opener.
    /// - Throws: ``AuthErrorCode`` — `webContextCancelled` when the browser does not come back within five
    ///   minutes, `operationNotAllowed` when the server has the provider turned off.
    public func credential(with uiDelegate: (any AuthUIDelegate)?) async throws -> AuthCredential {
        let auth = self.auth ?? Auth.auth()
        let receiver = try LoopbackRedirect()
        let started = try await auth.client.call(
            "createAuthUri",
            ["providerId": .string(providerID), "continueUri": .string(receiver.url.absoluteString)])
        guard let page = started["authUri"]?.stringValue.flatMap(URL.init(string:)),
            let sessionID = started["sessionId"]?.stringValue
        else {
            throw AuthErrorCode(.internalError, "The server gave no sign-in page for \(providerID).")
        }
        (uiDelegate ?? SystemURLOpener()).openAuthURL(page)
        let landed = try await receiver.waitForRedirect(timeout: Self.browserTimeout)
        return OAuthCredential(
            provider: providerID, idToken: nil, accessToken: nil,
            redirect: (requestURI: landed.absoluteString, sessionID: sessionID))
    }

    /// Completion-handler form of ``credential(with:)``, Firebase's `getCredentialWith(_:completion:)`; the
    /// completion runs on the auth's callback queue.
    public func getCredentialWith(
        _ uiDelegate: (any AuthUIDelegate)?,
        completion: (@Sendable (AuthCredential?, (any Error)?) -> Void)? = nil
    ) {
        let auth = self.auth ?? Auth.auth()
        auth.callbacks.complete(completion) { try await self.credential(with: uiDelegate) }
    }
}

extension Auth {
    /// Signs in with `provider` in a browser (``OAuthProvider/credential(with:)``), creating the account at the first
    /// sign-in — Firebase's `signIn(with:uiDelegate:)`.
    @discardableResult
    public func signIn(with provider: OAuthProvider, uiDelegate: (any AuthUIDelegate)?) async throws -> AuthDataResult {
        try await signIn(with: try await provider.credential(with: uiDelegate))
    }

    /// Completion-handler form of ``signIn(with:uiDelegate:)``; the completion runs on ``callbackQueue``.
    public func signIn(
        with provider: OAuthProvider, uiDelegate: (any AuthUIDelegate)?,
        completion: (@Sendable (AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        callbacks.complete(completion) { try await self.signIn(with: provider, uiDelegate: uiDelegate) }
    }
}
