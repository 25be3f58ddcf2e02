import HearthCore
import HearthCrypto

/// Development mode's provider picker (`/emulator/auth/handler`, as the Auth emulator serves it): for a browser
/// sign-in `accounts:createAuthUri` started with a provider that is not configured, it lists the accounts already
/// linked to that provider and makes new ones, then sends the browser back with a code holding the chosen identity.
extension AccountService {
    /// A picker session: the provider, and up to 50 identities linked to it so far. `nil` when the session is
    /// unknown, used, expired or not a picker's.
    public func devPicker(sessionID: String) throws(AuthError) -> (providerID: String, accounts: [ProviderLink])? {
        guard configuration.devMode, let session = providers.sessions.peek(sessionID, now: clock.seconds),
            session.viaDevPicker
        else { return nil }
        let providerID = session.providerID
        let links = try database.read { db in try ProviderLinkRows.links(providerID: providerID, limit: 50, in: db) }
        return (providerID, links)
    }

    /// The picker's choice: an existing identity (`rawID`) or a new one (`email`, `displayName`). Returns where to
    /// send the browser: the sign-in's `continueUri` with `code` (the identity's claims) and `state`.
    public func completeDevPicker(
        sessionID: String, rawID: String?, email: String?, displayName: String?
    ) throws(AuthError) -> String {
        guard let picker = try devPicker(sessionID: sessionID),
            let session = providers.sessions.peek(sessionID, now: clock.seconds)
        else { throw AuthError.invalidIdpResponse("the sign-in is unknown, used or expired") }
        var claims: [String: JSONValue] = [:]
        if let rawID, !rawID.isEmpty {
            guard let link = picker.accounts.first(where: { $0.rawID == rawID }) else {
                throw AuthError.invalidIdpResponse("no such account at \(picker.providerID)")
            }
            claims["sub"] = .string(link.rawID)
            if let email = link.email { claims["email"] = .string(email) }
            if let name = link.displayName { claims["name"] = .string(name) }
        } else {
            claims["sub"] = .string(SecureRandom.string(count: 20, alphabet: "0123456789"))
            if let email, !email.isEmpty {
                guard Validation.isValidEmail(email) else { throw AuthError.invalidEmail }
                claims["email"] = .string(email)
            }
            if let displayName, !displayName.isEmpty { claims["name"] = .string(displayName) }
        }
        if claims["email"] != nil { claims["email_verified"] = true }
        let code = Base64URL.encode(JSONValue.object(claims).serialized())
        let separator = session.redirectURI.contains("?") ? "&" : "?"
        return session.redirectURI + separator + "code=\(code)&state=\(Self.percentEncode(session.state))"
    }
}
