import Foundation
import HearthAuth
import HearthServer

/// `hearth serve`'s accounts options: admin credential, SMTP, links, enumeration protection and rate limits.
///
/// Secrets never come from flags, which other users can read in the process list: the admin key comes from
/// `HEARTH_ADMIN_KEY` or `--admin-key-file`, the SMTP password from `HEARTH_SMTP_PASSWORD` or `--smtp-password-file`.
enum AccountsOptions {
    /// (flag, environment variable, config-file key) of each option that takes a value.
    static let keys: [(flag: String, environment: String, file: String)] = [
        ("--admin-key-file", "HEARTH_ADMIN_KEY_FILE", "adminKeyFile"), ("--smtp-host", "HEARTH_SMTP_HOST", "smtpHost"),
        ("--smtp-port", "HEARTH_SMTP_PORT", "smtpPort"), ("--smtp-security", "HEARTH_SMTP_SECURITY", "smtpSecurity"),
        ("--smtp-user", "HEARTH_SMTP_USER", "smtpUser"),
        ("--smtp-password-file", "HEARTH_SMTP_PASSWORD_FILE", "smtpPasswordFile"),
        ("--mail-from", "HEARTH_MAIL_FROM", "mailFrom"), ("--mail-templates", "HEARTH_MAIL_TEMPLATES", "mailTemplates"),
        ("--app-name", "HEARTH_APP_NAME", "appName"), ("--public-url", "HEARTH_PUBLIC_URL", "publicUrl"),
        ("--action-url", "HEARTH_ACTION_URL", "actionUrl"),
        ("--authorized-domains", "HEARTH_AUTHORIZED_DOMAINS", "authorizedDomains"),
        ("--email-enumeration-protection", "HEARTH_EMAIL_ENUMERATION_PROTECTION", "emailEnumerationProtection"),
        ("--multiple-accounts-per-email", "HEARTH_MULTIPLE_ACCOUNTS_PER_EMAIL", "multipleAccountsPerEmail"),
        ("--auth-rate-limits", "HEARTH_AUTH_RATE_LIMITS", "authRateLimits"),
        ("--id-token-lifetime", "HEARTH_ID_TOKEN_LIFETIME", "idTokenLifetime"),
    ]

    /// The flags that take a value.
    static let valueFlags: Set<String> = Set(keys.map(\.flag)).subtracting(switchFlags)
    /// The flags that are switches.
    static let switchFlags: Set<String> = ["--email-enumeration-protection", "--multiple-accounts-per-email"]

    /// Lines for the options table of `hearth serve --help`.
    /// It starts with a line break because the table before it ends without one.
    static let help =
        "\n" + """
              --admin-key-file FILE   file holding the admin key (Bearer)   HEARTH_ADMIN_KEY (the key itself)
                                      for the Admin API; with --dev, `owner` works too
              --smtp-host HOST        SMTP server for verification and      HEARTH_SMTP_HOST (none: mail is not sent;
                                      reset mail                                               --dev: outbox)
              --smtp-port PORT        SMTP port                             HEARTH_SMTP_PORT (default 587)
              --smtp-security MODE    none, starttls or tls                 HEARTH_SMTP_SECURITY (default starttls)
              --smtp-user NAME        SMTP user name                        HEARTH_SMTP_USER
              --smtp-password-file F  file holding the SMTP password        HEARTH_SMTP_PASSWORD (the password itself)
              --mail-from ADDRESS     sender of account mail                HEARTH_MAIL_FROM (default Hearth <noreply@localhost>)
              --mail-templates DIR    verify_email.txt, password_reset.txt, HEARTH_MAIL_TEMPLATES
                                      verify_and_change_email.txt (+ .html)
              --app-name NAME         %APP_NAME% in mail                    HEARTH_APP_NAME (default Hearth)
              --public-url URL        base URL of links in mail             HEARTH_PUBLIC_URL (default: the listen address)
              --action-url URL        your own page for links in mail       HEARTH_ACTION_URL (default URL/__/auth/action)
              --authorized-domains H  hosts a continueUrl may name, comma-  HEARTH_AUTHORIZED_DOMAINS (also always: the
                                      separated (else UNAUTHORIZED_DOMAIN)  public and action URLs' hosts; --dev: localhost)
              --email-enumeration-protection                                HEARTH_EMAIL_ENUMERATION_PROTECTION=1
                                      INVALID_LOGIN_CREDENTIALS for unknown email and wrong password alike
              --multiple-accounts-per-email                                 HEARTH_MULTIPLE_ACCOUNTS_PER_EMAIL=1
                                      a provider sign-in with a taken address makes its own account
                                      (default: one account per email, needConfirmation)
              --auth-rate-limits SPEC account=N/SECONDS (failed sign-ins),  HEARTH_AUTH_RATE_LIMITS
                                      address=N/SECONDS (attempts per IP), (default account=10/900,
                                      mail=N/SECONDS (mails per account)     address=300/300,mail=10/3600; 0 = off)
              --id-token-lifetime S   ID token lifetime, 1…3600 seconds     HEARTH_ID_TOKEN_LIFETIME (default 3600,
                                      (shorter: to test token expiry)        as Firebase)
                                      (config-file keys: adminKeyFile, smtpHost, smtpPort, smtpSecurity, smtpUser,
                                      smtpPasswordFile, mailFrom, mailTemplates, appName, publicUrl, actionUrl,
                                      authorizedDomains, emailEnumerationProtection, authRateLimits, idTokenLifetime)

            """

    /// Applies the options `value` resolves (flag > environment > file) to `configuration`.
    static func apply(
        _ value: (String) -> String?, switches: Set<String>, environment: [String: String],
        to configuration: inout ServerConfiguration
    ) throws {
        func fail(_ message: String) -> CommandLineArguments.UsageError {
            CommandLineArguments.UsageError(description: message)
        }
        func secret(file flag: String, environment name: String) throws -> String? {
            if let path = value(flag) {
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw fail("\(flag): cannot read \(path)")
                }
                let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                guard !text.isEmpty else { throw fail("\(flag): \(path) is empty") }
                return text
            }
            return environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        var settings = configuration.accounts
        settings.adminKey = try secret(file: "--admin-key-file", environment: "HEARTH_ADMIN_KEY")
        if let key = settings.adminKey, key.utf8.count < 16 || key.lowercased() == "owner" {
            throw fail("the admin key must be at least 16 characters and not \"owner\"")
        }
        settings.smtpHost = value("--smtp-host")
        if let port = value("--smtp-port") {
            guard let number = Int(port), (1...65535).contains(number) else {
                throw fail("--smtp-port must be 1…65535")
            }
            settings.smtpPort = number
        }
        if let security = value("--smtp-security") {
            guard ["none", "starttls", "tls"].contains(security) else {
                throw fail("--smtp-security must be none, starttls or tls")
            }
            settings.smtpSecurity = security
            if security == "tls" && value("--smtp-port") == nil { settings.smtpPort = 465 }
        }
        settings.smtpUsername = value("--smtp-user")
        settings.smtpPassword = try secret(file: "--smtp-password-file", environment: "HEARTH_SMTP_PASSWORD")
        if let from = value("--mail-from") { settings.mailFrom = from }
        if let directory = value("--mail-templates") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw fail("--mail-templates: \(directory) is not a directory")
            }
            settings.mailTemplatesDirectory = directory
        }
        if let name = value("--app-name") { settings.appName = name }
        for (flag, keyPath) in [
            ("--public-url", \AccountsSettings.publicURL), ("--action-url", \AccountsSettings.actionURL),
        ] {
            guard let url = value(flag) else { continue }
            guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
                throw fail("\(flag) must be an http(s) URL")
            }
            settings[keyPath: keyPath] = url
        }
        if let list = value("--authorized-domains") {
            let hosts = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard hosts.allSatisfy(AccountsConfiguration.isValidAuthorizedDomain),
                hosts.count <= AccountsConfiguration.maxAuthorizedDomains
            else {
                throw fail(
                    "--authorized-domains takes host names separated by commas, e.g. app.example.com,example.com")
            }
            settings.authorizedDomains = hosts
        }
        for (flag, environment, keyPath) in [
            (
                "--email-enumeration-protection", "HEARTH_EMAIL_ENUMERATION_PROTECTION",
                \AccountsSettings.emailEnumerationProtection
            ),
            (
                "--multiple-accounts-per-email", "HEARTH_MULTIPLE_ACCOUNTS_PER_EMAIL",
                \AccountsSettings.multipleAccountsPerEmail
            ),
        ] {
            if switches.contains(flag) {
                settings[keyPath: keyPath] = true
            } else if let text = value(flag) {
                guard
                    let parsed = ["1": true, "true": true, "yes": true, "0": false, "false": false, "no": false][
                        text.lowercased()]
                else {
                    throw fail("\(environment) must be 1 or 0")
                }
                settings[keyPath: keyPath] = parsed
            }
        }
        if let spec = value("--auth-rate-limits") {
            guard let limits = RateLimits(parsing: spec) else {
                throw fail("--auth-rate-limits must look like account=10/900,address=300/300,mail=10/3600")
            }
            settings.rateLimits = limits
        }
        if let lifetime = value("--id-token-lifetime") {
            guard let seconds = Int64(lifetime), (1...3600).contains(seconds) else {
                throw fail("--id-token-lifetime must be a whole number of seconds from 1 to 3600")
            }
            settings.idTokenLifetime = seconds
        }
        configuration.accounts = settings
    }
}
