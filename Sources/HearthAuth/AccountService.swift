import Foundation
public import HearthCore
import HearthCrypto
public import HearthLog
public import HearthMail
import HearthSQLite
public import HearthStoreSQLite
import Synchronization

/// The accounts domain: users, passwords, ID and refresh tokens, one-time codes and mail, behind the operations of
/// Identity Toolkit v1 and Secure Token.
///
/// Every method blocks (SQLite, argon2id, key generation), so the HTTP layer runs them on its own bounded workers,
/// never on HTTP threads. All state is in the database, the key directory or `Sendable` members, so one instance
/// serves every thread.
public final class AccountService: Sendable {
    /// The settings it runs with.
    public let configuration: AccountsConfiguration
    let database: AccountDatabase
    let keys: SigningKeys
    let idTokens: IDTokens
    let customTokens: CustomTokens
    let hasher: PasswordHasher
    let clock: WallClock
    /// Where operational log lines go.
    let logger: Logger
    let mail: MailDispatcher
    let templates: MailTemplates
    let devCodes = DevOobLog()
    let addressLimiter: RateLimiter
    let accountLimiter: RateLimiter
    let mailLimiter: RateLimiter
    /// The federated identity providers and their cached keys.
    let providers: IdentityProviders
    /// A hash of a random password, verified against when the email is unknown so that the answer takes as long as
    /// for a known email with a wrong password (no timing oracle for which addresses have accounts).
    let decoyHash: String
    /// The authorized domains: the configured ones until changed at run time (``setAuthorizedDomains(_:)``).
    let domains: Mutex<[String]>

    /// The development outbox, when mail goes to one.
    public var outbox: Outbox? { mail.mailer as? Outbox }

    /// Opens the accounts in `configuration.dataDirectory`, creating tables and the first signing key as needed.
    /// - Parameters:
    ///   - mailer: where verification and reset mail goes (an `Outbox` in development mode, `SMTPMailer` otherwise).
    ///   - logger: where operational log lines go.
    ///   - clock: the wall clock; tests pass their own.
    ///   - database: the server's open database, whose single writer then runs every account write (the server
    ///     closes it); `nil` opens connections of the accounts' own, for a process that runs no server
    ///     (`hearth users`).
    public convenience init(
        configuration: AccountsConfiguration, mailer: any Mailer, logger: Logger = Logger(level: .error) { _ in },
        clock: WallClock = .system, database: SQLiteDatabase? = nil
    ) throws(AuthError) {
        let accounts =
            if let database {
                try AccountDatabase(database: database)
            } else {
                try AccountDatabase(directory: configuration.dataDirectory)
            }
        try self.init(configuration: configuration, mailer: mailer, logger: logger, clock: clock, accounts: accounts)
    }

    /// The accounts in `accounts` (another engine's, for instance), everything else as the public initializer.
    package init(
        configuration: AccountsConfiguration, mailer: any Mailer, logger: Logger, clock: WallClock,
        accounts: AccountDatabase
    ) throws(AuthError) {
        self.configuration = configuration
        domains = Mutex(configuration.authorizedDomains)
        self.clock = clock
        self.logger = logger
        self.database = accounts
        let keyDirectory = (configuration.dataDirectory as NSString).appendingPathComponent("keys")
        let keyStorage: any SigningKeyStorage =
            if let shared = accounts.signingKeys {
                shared
            } else {
                try SigningKeyFiles(directory: (keyDirectory as NSString).appendingPathComponent("signing"))
            }
        keys = try SigningKeys(
            storage: keyStorage,
            overlap: configuration.idTokenLifetime + 300, clock: clock, logger: logger)
        idTokens = IDTokens(
            keys: keys, projectID: configuration.projectID, lifetime: configuration.idTokenLifetime, clock: clock)
        customTokens = CustomTokens(
            trustedKeys: try CustomTokens.loadKeys(
                from: (keyDirectory as NSString).appendingPathComponent("custom-token")),
            allowUnsigned: configuration.devMode, clock: clock)
        hasher = PasswordHasher(
            parameters: PasswordHasher.Parameters(
                iterations: configuration.passwordHashIterations, memoryBytes: configuration.passwordHashMemoryBytes))
        do {
            decoyHash = try hasher.hash(Base64URL.encode(SecureRandom.bytes(16)))
        } catch {
            throw .internal("argon2id is unusable with these parameters: \(error)")
        }
        mail = MailDispatcher(mailer: mailer, logger: logger)
        templates = try MailTemplates.load(directory: configuration.mailTemplatesDirectory)
        let buckets = accounts.rateLimits
        addressLimiter = RateLimiter(
            limit: configuration.rateLimits.attemptsPerAddress, clock: clock, scope: "address", storage: buckets)
        accountLimiter = RateLimiter(
            limit: configuration.rateLimits.failedSignInsPerAccount, clock: clock, scope: "account", storage: buckets)
        mailLimiter = RateLimiter(
            limit: configuration.rateLimits.mailsPerAccount, clock: clock, scope: "mail", storage: buckets)
        providers = IdentityProviders(
            configuration.identityProviders, policy: configuration.providerURLPolicy, devMode: configuration.devMode)
    }

    /// Waits for queued mail's first delivery attempt, then closes the database.
    public func close() {
        mail.drain()
        database.close()
    }

    /// Waits until every message queued so far had its first delivery attempt.
    public func flushMail() {
        mail.drain()
    }

    // MARK: Shared steps

    /// Signs `user` in with `provider`: a new ID token and a new refresh token (stored as its hash).
    func issueTokens(
        for user: UserRecord, provider: String, extraClaims: [String: JSONValue] = [:]
    ) throws(AuthError) -> TokenBundle {
        let idToken = try idTokens.issue(for: user, provider: provider, extraClaims: extraClaims)
        let (refreshToken, hash) = RefreshTokens.generate()
        let extra = extraClaims.isEmpty ? nil : JSONValue.object(extraClaims).jsonString
        let row = RefreshTokenRows.Row(
            uid: user.uid, provider: provider, extraClaims: extra, createdAt: clock.milliseconds)
        try database.write { db in try RefreshTokenRows.insert(hash: hash, row: row, in: db) }
        return TokenBundle(idToken: idToken, refreshToken: refreshToken, expiresIn: configuration.idTokenLifetime)
    }

    /// The account behind an ID token, refusing revoked (`TOKEN_EXPIRED`), deleted (`USER_NOT_FOUND`) and disabled
    /// (`USER_DISABLED`) ones.
    func account(forIDToken token: String) throws(AuthError) -> (token: VerifiedIDToken, user: UserRecord) {
        let verified = try idTokens.verify(token)
        let uid = verified.uid
        let user = try database.read { db in try UserRows.user(uid: uid, in: db) }
        try Self.checkAccount(of: verified, user.map { ($0.disabled, $0.validSince) })
        guard let user else { throw AuthError.userNotFound }
        return (verified, user)
    }

    /// The account side of an ID token's check: the account exists, is not disabled, and the token was issued
    /// after its sessions were last revoked (`validSince`).
    static func checkAccount(
        of token: VerifiedIDToken, _ status: (disabled: Bool, validSince: Int64)?
    ) throws(AuthError) {
        guard let status else { throw AuthError.userNotFound }
        guard !status.disabled else { throw AuthError.userDisabled }
        guard token.issuedAt >= status.validSince else { throw AuthError.tokenExpired }
    }

    /// A fresh random user ID: 28 letters and digits, as Firebase's.
    static func newUID() -> String {
        SecureRandom.string(count: 28, alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    }

    /// Hashes `password` with the current parameters.
    func hashPassword(_ password: String) throws(AuthError) -> String {
        do {
            return try hasher.hash(password)
        } catch {
            throw .internal("password hashing failed: \(error)")
        }
    }

    /// Spends one attempt of the caller's address, or refuses with `TOO_MANY_ATTEMPTS_TRY_LATER`.
    func limitAddress(_ context: RequestContext) throws(AuthError) {
        if context.isAdmin { return }
        guard try addressLimiter.consume(context.clientAddress) else { throw AuthError.tooManyAttempts }
    }

    /// Ends every session of `uid`: refresh tokens deleted, ID tokens issued before now refused.
    func revokeSessions(of user: inout UserRecord, in db: any AccountRows) throws {
        user.validSince = clock.seconds
        try RefreshTokenRows.deleteAll(uid: user.uid, in: db)
    }
}

/// A successful sign-in's tokens.
public struct TokenBundle: Sendable, Equatable {
    /// The ID token (JWT).
    public var idToken: String
    /// The refresh token.
    public var refreshToken: String
    /// The ID token's lifetime in seconds.
    public var expiresIn: Int64
}

/// Who asks, as far as the accounts service cares.
public struct RequestContext: Sendable {
    /// The caller presented the admin credential.
    public var isAdmin: Bool
    /// The client's IP address, for per-address limits.
    public var clientAddress: String
    /// The scheme, host and port links in mail start with when no public URL is configured, e.g.
    /// `http://127.0.0.1:8080` (from the request's `Host`).
    public var linkBaseURL: String
    /// The API key the client sent, echoed in action links as Firebase's are.
    public var apiKey: String?

    /// A context for one request.
    public init(isAdmin: Bool, clientAddress: String, linkBaseURL: String, apiKey: String? = nil) {
        self.isAdmin = isAdmin
        self.clientAddress = clientAddress
        self.linkBaseURL = linkBaseURL
        self.apiKey = apiKey
    }
}

extension AccountService {
    /// Writes one log line. Callers never put emails, passwords, tokens or codes in the message or metadata (the one
    /// exception, development mode's outbox link, is documented where it is logged).
    func log(_ level: Logger.Level, _ message: String, _ metadata: [String: String]) {
        logger.log(level, message, metadata.mapValues { .string($0) })
    }
}
