public import HearthAuth

/// The accounts part of `ServerConfiguration`: admin credential, mail, links, enumeration protection and limits.
public struct AccountsSettings: Sendable, Equatable {
    /// The admin key (`Authorization: Bearer <key>`), from `HEARTH_ADMIN_KEY` or `--admin-key-file`. Outside
    /// development mode it is the only admin credential; `owner` works only with `--dev`.
    public var adminKey: String?
    /// SMTP server host; `nil` sends no mail outside development mode (and logs that it could not).
    public var smtpHost: String?
    /// SMTP port (default 587).
    public var smtpPort: Int = 587
    /// `none`, `starttls` or `tls`.
    public var smtpSecurity: String = "starttls"
    /// SMTP user name.
    public var smtpUsername: String?
    /// SMTP password (from `HEARTH_SMTP_PASSWORD` or `--smtp-password-file`; never logged).
    public var smtpPassword: String?
    /// The sender of account mail.
    public var mailFrom: String = "Hearth <noreply@localhost>"
    /// The application name in mail (`%APP_NAME%`).
    public var appName: String = "Hearth"
    /// A directory of operator mail templates.
    public var mailTemplatesDirectory: String?
    /// The externally visible base URL links in mail start with, e.g. `https://auth.example.com`.
    public var publicURL: String?
    /// The operator's own page for handling links, instead of Hearth's `/__/auth/action`.
    public var actionURL: String?
    /// Hosts a `continueUrl` may point at, besides the public and action URLs' (and localhost with `--dev`).
    public var authorizedDomains: [String] = []
    /// Use `INVALID_LOGIN_CREDENTIALS` for both unknown emails and wrong passwords.
    public var emailEnumerationProtection: Bool = false
    /// Firebase's "multiple accounts per email address" (`--multiple-accounts-per-email`).
    public var multipleAccountsPerEmail: Bool = false
    /// Brute-force limits.
    public var rateLimits = RateLimits()
    /// ID token lifetime in seconds (Firebase's is one hour, the default). Shorter lifetimes are for testing what
    /// clients do when a token expires: refreshing it, and streams ending with `auth_revoked`.
    public var idTokenLifetime: Int64 = 3600
    /// Mail goes to the in-memory outbox even outside development mode (for tests).
    public var useOutbox: Bool = false
    /// Federated identity providers (`accounts:signInWithIdp`), from the config file's `providers` object.
    public var identityProviders: [IdentityProviderConfiguration] = []
    /// Provider URLs may be plain `http` to a loopback address (tests, or a provider on the same machine).
    public var allowLoopbackProviders: Bool = false

    /// The defaults.
    public init() {}
}
