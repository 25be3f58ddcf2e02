public import HearthCore

/// Who drives a listen session: the identity the request authenticator produced for the request that opened it.
///
/// Later requests on the session must come from the same identity (the same user, the administrator, or — for a
/// session opened without credentials — any unauthenticated caller holding the unguessable session ID).
public struct ListenCaller: Sendable, Equatable {
    /// The verified caller, `nil` when the request carried no credential.
    public var auth: AuthContext?

    /// A caller.
    public init(auth: AuthContext?) {
        self.auth = auth
    }

    /// Compared between the opening request and later ones: a refreshed ID token of the same user still matches,
    /// although its claims (issue and expiry times) differ.
    public var identity: String {
        guard let auth else { return "anonymous" }
        if auth.isAdmin { return "admin" }
        return "uid:" + (auth.uid ?? "")
    }
}
