import Foundation
import HearthAuth
import HearthCore
import HearthLog
import HearthMail

/// Builds the accounts service a server runs with, from its configuration.
enum AccountsSetup {
    /// The accounts on the server's database (its engine's: the SQLite file's single writer, or PostgreSQL).
    static func makeService(
        _ configuration: ServerConfiguration, engine: DatabaseEngine, logger: Logger, clock: WallClock = .system
    ) throws(HearthError) -> AccountService {
        let settings = configuration.accounts
        var accounts = AccountsConfiguration(
            projectID: configuration.projectID, dataDirectory: configuration.dataDirectory)
        accounts.devMode = configuration.devMode
        accounts.adminKey = settings.adminKey
        accounts.emailEnumerationProtection = settings.emailEnumerationProtection
        accounts.multipleAccountsPerEmail = settings.multipleAccountsPerEmail
        accounts.rateLimits = settings.rateLimits
        accounts.idTokenLifetime = settings.idTokenLifetime
        accounts.mailFrom = settings.mailFrom
        accounts.appName = settings.appName
        accounts.mailTemplatesDirectory = settings.mailTemplatesDirectory
        accounts.publicURL = settings.publicURL
        accounts.actionURL = settings.actionURL
        accounts.authorizedDomains = settings.authorizedDomains
        accounts.identityProviders = settings.identityProviders
        accounts.providerURLPolicy = ProviderURLPolicy(allowsLoopbackHTTP: settings.allowLoopbackProviders)
        do {
            return try AccountService(
                configuration: accounts, mailer: try mailer(configuration, logger: logger), logger: logger,
                clock: clock, accounts: try engine.accounts())
        } catch let error as AuthError {
            throw HearthError(.internal, "Cannot open the accounts: \(error.detail ?? error.code)")
        } catch {
            throw HearthError(.internal, "Cannot open the accounts: \(error)")
        }
    }

    /// The outbox in development mode, SMTP when a host is configured, otherwise a mailer that refuses (and so
    /// logs every message it could not send).
    static func mailer(_ configuration: ServerConfiguration, logger: Logger) throws(HearthError) -> any Mailer {
        let settings = configuration.accounts
        if !configuration.devMode && settings.publicURL == nil {
            logger.warning(
                "no --public-url: links in mail point at the address the server listens on",
                ["host": .string(configuration.host)])
        }
        if configuration.devMode || settings.useOutbox { return Outbox() }
        guard let host = settings.smtpHost else {
            logger.warning("no SMTP server configured (--smtp-host): verification and reset mail cannot be sent")
            return UnconfiguredMailer()
        }
        guard let security = SMTPConfiguration.Security(rawValue: settings.smtpSecurity) else {
            throw HearthError(.invalidArgument, "--smtp-security must be none, starttls or tls")
        }
        return SMTPMailer(
            configuration: SMTPConfiguration(
                host: host, port: settings.smtpPort, security: security, username: settings.smtpUsername,
                password: settings.smtpPassword, from: settings.mailFrom))
    }
}

/// The mailer when no SMTP server is configured outside development mode: every send fails, which the mail
/// dispatcher logs.
struct UnconfiguredMailer: Mailer {
    func send(_ message: MailMessage) throws(MailError) {
        throw MailError(.transport, "no SMTP server is configured (--smtp-host)")
    }
}
