import Foundation
import HearthCore
import HearthMail

/// What `accounts:sendOobCode` may carry.
public struct OobCodeRequest: Sendable {
    /// `VERIFY_EMAIL`, `PASSWORD_RESET` or `VERIFY_AND_CHANGE_EMAIL` (as sent; validated here).
    public var requestType: String?
    /// The address (`PASSWORD_RESET`; admin `VERIFY_EMAIL`).
    public var email: String?
    /// The signed-in user (`VERIFY_EMAIL`, `VERIFY_AND_CHANGE_EMAIL`).
    public var idToken: String?
    /// The address to switch to (`VERIFY_AND_CHANGE_EMAIL`).
    public var newEmail: String?
    /// Where the action page sends the user afterwards.
    public var continueURL: String?
    /// Return the link instead of mailing it (admin only: the Admin SDKs' `generate…Link`).
    public var returnOobLink: Bool = false

    /// An empty request.
    public init() {}
}

/// The outcome of `accounts:sendOobCode`.
public struct OobCodeResult: Sendable {
    /// The address the code is for.
    public var email: String
    /// The code and link, only when `returnOobLink` was asked by an admin.
    public var oobCode: String?
    /// The link.
    public var oobLink: String?
}

extension AccountService {
    /// `accounts:sendOobCode`: makes a one-time code and mails its link (or, for an admin asking with
    /// `returnOobLink`, returns it). Mail leaves asynchronously after the code is stored; see `MailDispatcher`.
    public func sendOobCode(_ request: OobCodeRequest, context: RequestContext) throws(AuthError) -> OobCodeResult {
        guard let typeName = request.requestType, !typeName.isEmpty, typeName != "OOB_REQ_TYPE_UNSPECIFIED" else {
            throw AuthError("MISSING_REQ_TYPE")
        }
        if request.returnOobLink && !context.isAdmin { throw AuthError.insufficientPermission }
        if let url = request.continueURL {
            guard Validation.isAbsoluteURI(url) else {
                throw AuthError("INVALID_CONTINUE_URI", "expected an absolute URI with valid scheme and host")
            }
            guard isAuthorizedContinueURL(url) else {
                throw AuthError("UNAUTHORIZED_DOMAIN", "Domain not allowlisted by project")
            }
        }
        guard let type = OobRequestType(rawValue: typeName) else {
            if typeName == "EMAIL_SIGNIN" {
                throw AuthError("OPERATION_NOT_ALLOWED", "Email link sign-in is not enabled.")
            }
            throw AuthError("INVALID_REQ_TYPE", typeName)
        }
        try limitAddress(context)
        let user: UserRecord
        var newEmail: String?
        switch type {
        case .passwordReset:
            guard let given = request.email, !given.isEmpty else { throw AuthError.missingEmail }
            guard Validation.isValidEmail(given) else { throw AuthError.invalidEmail }
            let email = Validation.canonicalEmail(given)
            guard let found = try database.read({ db in try UserRows.user(email: email, in: db) }) else {
                // With enumeration protection an unknown address looks exactly like a known one.
                if configuration.emailEnumerationProtection && !request.returnOobLink {
                    return OobCodeResult(email: email)
                }
                throw AuthError.emailNotFound
            }
            user = found
        case .verifyEmail, .verifyAndChangeEmail:
            // The admin names the account by its address: the link comes back with `returnOobLink`, else it is
            // mailed (the console's "Send verification mail").
            if context.isAdmin && request.idToken == nil {
                guard let given = request.email, !given.isEmpty else { throw AuthError.missingEmail }
                let email = Validation.canonicalEmail(given)
                guard let found = try database.read({ db in try UserRows.user(email: email, in: db) }) else {
                    throw AuthError.userNotFound
                }
                user = found
            } else {
                guard let token = request.idToken, !token.isEmpty else { throw AuthError.missingIDToken }
                user = try account(forIDToken: token).user
            }
            guard user.email != nil else { throw AuthError.missingEmail }
            if type == .verifyAndChangeEmail {
                guard let given = request.newEmail, !given.isEmpty else { throw AuthError("MISSING_NEW_EMAIL") }
                guard Validation.isValidEmail(given) else { throw AuthError("INVALID_NEW_EMAIL") }
                let candidate = Validation.canonicalEmail(given)
                if try database.read({ db in try UserRows.user(email: candidate, in: db) }) != nil {
                    throw AuthError.emailExists
                }
                newEmail = candidate
            }
        }
        let email = user.email ?? ""
        let sendsMail = !request.returnOobLink
        if sendsMail, try !mailLimiter.consume(user.uid) { throw AuthError.tooManyAttempts }
        let (code, hash) = OobCodes.generate()
        let now = clock.seconds
        let lifetime =
            type == .passwordReset ? configuration.passwordResetCodeLifetime : configuration.verifyEmailCodeLifetime
        let row = OobCodeRows.Row(
            uid: user.uid, requestType: type, email: email, newEmail: newEmail, expiresAt: now + lifetime)
        try database.write { db in
            try OobCodeRows.prune(before: now, in: db)
            try OobCodeRows.insert(hash: hash, row: row, createdAt: now, in: db)
        }
        let link = actionLink(type: type, code: code, continueURL: request.continueURL, context: context)
        if configuration.devMode {
            devCodes.record(
                OobCodeEntry(email: email, oobCode: code, oobLink: link, requestType: type, newEmail: newEmail),
                hash: hash)
        }
        guard sendsMail else { return OobCodeResult(email: email, oobCode: code, oobLink: link) }
        let message = composeMail(
            type: type, to: type == .verifyAndChangeEmail ? newEmail ?? email : email, user: user,
            newEmail: newEmail, link: link)
        mail.enqueue(message, kind: type.rawValue)
        if configuration.devMode {
            // Development mode only, as the Firebase Auth emulator does: the link (with its one-time code) is logged
            // so a developer can follow it without a mail client. Never logged outside --dev.
            log(.info, "dev outbox: follow this link", ["kind": type.rawValue, "link": link])
        }
        return OobCodeResult(email: email)
    }

    /// The codes issued and not yet used (development mode; empty otherwise).
    public var issuedCodes: [OobCodeEntry] { devCodes.list }

    /// Whether `url` may be a `continueUrl`: its host is one of ``allAuthorizedDomains``. The action pages ask too,
    /// so a link crafted with a foreign `continueUrl` never sends anyone there.
    public func isAuthorizedContinueURL(_ url: String) -> Bool {
        guard let host = Validation.host(of: url) else { return false }
        return allAuthorizedDomains.contains(host)
    }

    /// The link a message carries: the operator's action URL, else Hearth's own action page.
    func actionLink(type: OobRequestType, code: String, continueURL: String?, context: RequestContext) -> String {
        let base = (configuration.publicURL ?? context.linkBaseURL).trimmingSuffix("/")
        var query = [
            ("mode", type.mode), ("oobCode", code), ("apiKey", context.apiKey ?? "hearth"), ("lang", "en"),
        ]
        if let continueURL { query.append(("continueUrl", continueURL)) }
        let encoded = query.map { "\($0.0)=\(Self.percentEncode($0.1))" }.joined(separator: "&")
        if let action = configuration.actionURL { return action + (action.contains("?") ? "&" : "?") + encoded }
        return base + (configuration.devMode ? "/emulator/action?" : "/__/auth/action?") + encoded
    }

    func composeMail(
        type: OobRequestType, to recipient: String, user: UserRecord, newEmail: String?, link: String
    ) -> MailMessage {
        let values = [
            "APP_NAME": configuration.appName, "EMAIL": user.email ?? "", "NEW_EMAIL": newEmail ?? "",
            "DISPLAY_NAME": user.displayName ?? "", "LINK": link,
        ]
        let rendered = templates.render(type, values: values)
        return MailMessage(
            from: configuration.mailFrom, to: recipient, subject: rendered.subject, text: rendered.text,
            html: rendered.html)
    }

    static func percentEncode(_ text: String) -> String { PercentEncoding.unreserved(text) }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
