/// Everything the accounts service is told at start-up.
public struct AccountsConfiguration: Sendable, Equatable {
    /// The project ID: ID tokens carry it as `aud` and in `iss` (`https://securetoken.google.com/<project>`).
    public var projectID: String
    /// The data directory: `hearth.sqlite` holds the accounts, `keys/` the signing keys.
    public var dataDirectory: String
    /// Development mode: `Bearer owner` is an admin credential, unsigned (`alg: none`) custom tokens are accepted,
    /// mail goes to the outbox and is listed at the emulator endpoints.
    public var devMode: Bool = false
    /// Firebase's "multiple accounts per email address" setting: a provider sign-in whose address another account
    /// has makes an account of its own (no `needConfirmation`); an address still signs in with a password to one
    /// account only. Off by default, as in Firebase ("one account per email address").
    public var multipleAccountsPerEmail: Bool = false
    /// ID token lifetime in seconds (Firebase: one hour).
    public var idTokenLifetime: Int64 = 3600
    /// How long an email-verification code stays usable, in seconds.
    public var verifyEmailCodeLifetime: Int64 = 3 * 24 * 3600
    /// How long a password-reset code stays usable, in seconds (Firebase: one hour).
    public var passwordResetCodeLifetime: Int64 = 3600
    /// Answer wrong-email and wrong-password sign-ins alike with `INVALID_LOGIN_CREDENTIALS`, and password-reset
    /// requests for unknown addresses with success, so callers cannot probe which addresses have accounts.
    public var emailEnumerationProtection: Bool = false
    /// The shortest password accepted (Firebase: 6).
    public var minimumPasswordLength: Int = 6
    /// argon2id passes over memory for new password hashes.
    public var passwordHashIterations: Int = 2
    /// argon2id memory per new password hash, in bytes (OWASP: 19 MiB).
    public var passwordHashMemoryBytes: Int = 19 * 1024 * 1024
    /// Brute-force limits.
    public var rateLimits = RateLimits()
    /// The sender of verification and reset mail.
    public var mailFrom: String = "Hearth <noreply@localhost>"
    /// The application name used in mail templates (`%APP_NAME%`).
    public var appName: String = "Hearth"
    /// A directory with operator templates (`verify_email.txt`, `password_reset.txt`, …); `nil` uses the built-in ones.
    public var mailTemplatesDirectory: String?
    /// Where links in mail point: an absolute URL such as `https://auth.example.com`; `nil` uses the request's
    /// `Host` header.
    public var publicURL: String?
    /// A page of the operator's app that handles links itself (`…?mode=…&oobCode=…`); `nil` uses Hearth's
    /// `/__/auth/action` (or `/emulator/action` in development mode).
    public var actionURL: String?
    /// The admin key (`Authorization: Bearer <key>`); `nil` leaves only `owner`, and only in development mode.
    public var adminKey: String?
    /// Hosts a `continueUrl` may point at (Firebase's authorized domains), besides the hosts of ``publicURL`` and
    /// ``actionURL`` and, in development mode, `localhost` and `127.0.0.1`; any other is `UNAUTHORIZED_DOMAIN`.
    public var authorizedDomains: [String] = []
    /// The federated identity providers accepted by `accounts:signInWithIdp`.
    public var identityProviders: [IdentityProviderConfiguration] = []
    /// Which identity-provider URLs may be fetched (`https`, and loopback `http` only when allowed).
    public var providerURLPolicy = ProviderURLPolicy()

    /// A configuration for `projectID` with data in `dataDirectory`.
    public init(projectID: String, dataDirectory: String) {
        self.projectID = projectID
        self.dataDirectory = dataDirectory
    }
}

/// Limits on attempts, each a number of events per window of seconds; a count of 0 turns a limit off.
public struct RateLimits: Sendable, Equatable {
    /// One limit: at most `count` events per `seconds`, refilled smoothly (a token bucket).
    public struct Limit: Sendable, Equatable, CustomStringConvertible {
        /// Events allowed per window; 0 means unlimited.
        public var count: Int
        /// The window, in seconds.
        public var seconds: Int

        /// At most `count` per `seconds`.
        public init(count: Int, seconds: Int) {
            self.count = count
            self.seconds = max(1, seconds)
        }

        /// Parses `COUNT/SECONDS`, e.g. `10/900`.
        public init?(parsing text: String) {
            let parts = text.split(separator: "/")
            guard parts.count == 2, let count = Int(parts[0]), let seconds = Int(parts[1]), count >= 0, seconds > 0
            else { return nil }
            self.init(count: count, seconds: seconds)
        }

        /// `COUNT/SECONDS`, as parsed.
        public var description: String { "\(count)/\(seconds)" }
    }

    /// Failed password sign-ins per account (by email).
    public var failedSignInsPerAccount = Limit(count: 10, seconds: 900)
    /// Sign-in, sign-up, reset and code requests per client address.
    public var attemptsPerAddress = Limit(count: 300, seconds: 300)
    /// Verification and reset mails per account.
    public var mailsPerAccount = Limit(count: 10, seconds: 3600)

    /// The defaults above.
    public init() {}

    /// Parses `account=10/900,address=300/300,mail=10/3600` (any subset, any order).
    public init?(parsing text: String) {
        self.init()
        for item in text.split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1).map { String($0).trimmingCharacters() }
            guard pair.count == 2, let limit = Limit(parsing: pair[1]) else { return nil }
            switch pair[0] {
            case "account": failedSignInsPerAccount = limit
            case "address": attemptsPerAddress = limit
            case "mail": mailsPerAccount = limit
            default: return nil
            }
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    func trimmingCharacters() -> String {
        var view = Substring(self)
        while let first = view.first, first == " " || first == "\t" { view.removeFirst() }
        while let last = view.last, last == " " || last == "\t" { view.removeLast() }
        return String(view)
    }
}
