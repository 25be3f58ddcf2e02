import Foundation
import HearthCore

/// The text of verification and reset mail, with Firebase's placeholders `%APP_NAME%`, `%EMAIL%`, `%NEW_EMAIL%`,
/// `%DISPLAY_NAME%` and `%LINK%`.
///
/// Operators replace a template by putting a file in the templates directory: `verify_email.txt`,
/// `password_reset.txt` or `verify_and_change_email.txt`, whose first line is `Subject: …`, then a blank line, then
/// the body; an optional `.html` file of the same name adds an HTML part (values are HTML-escaped there).
struct MailTemplates: Sendable {
    struct Template: Sendable {
        var subject: String
        var text: String
        var html: String?
    }

    var templates: [OobRequestType: Template]

    static let builtIn: [OobRequestType: Template] = [
        .verifyEmail: Template(
            subject: "Verify your email for %APP_NAME%",
            text: """
                Hello %DISPLAY_NAME%,

                Please confirm that %EMAIL% is your address by opening this link:

                %LINK%

                If you did not create an account with %APP_NAME%, ignore this message.

                — %APP_NAME%
                """),
        .passwordReset: Template(
            subject: "Reset your password for %APP_NAME%",
            text: """
                Hello,

                Someone asked to reset the %APP_NAME% password of %EMAIL%. To choose a new password, open this link:

                %LINK%

                The link works once and expires within an hour. If you did not ask for this, ignore this message;
                your password stays as it is.

                — %APP_NAME%
                """),
        .verifyAndChangeEmail: Template(
            subject: "Confirm your new email for %APP_NAME%",
            text: """
                Hello %DISPLAY_NAME%,

                To use %NEW_EMAIL% instead of %EMAIL% for your %APP_NAME% account, open this link:

                %LINK%

                If you did not ask for this change, ignore this message.

                — %APP_NAME%
                """),
    ]

    static func fileStem(_ type: OobRequestType) -> String {
        switch type {
        case .verifyEmail: "verify_email"
        case .passwordReset: "password_reset"
        case .verifyAndChangeEmail: "verify_and_change_email"
        }
    }

    /// The built-in templates, overridden by any files in `directory`.
    static func load(directory: String?) throws(AuthError) -> MailTemplates {
        var templates = builtIn
        guard let directory else { return MailTemplates(templates: templates) }
        for type in OobRequestType.allCases {
            let base = (directory as NSString).appendingPathComponent(fileStem(type))
            guard let data = FileManager.default.contents(atPath: base + ".txt") else { continue }
            let text = String(decoding: data, as: UTF8.self)
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            guard let first = lines.first, first.hasPrefix("Subject:") else {
                throw .internal("\(base).txt must start with a \"Subject: …\" line")
            }
            lines.removeFirst()
            if lines.first?.isEmpty == true { lines.removeFirst() }
            let html = FileManager.default.contents(atPath: base + ".html").map { String(decoding: $0, as: UTF8.self) }
            templates[type] = Template(
                subject: String(first.dropFirst("Subject:".count)).trimmingCharacters(),
                text: lines.joined(separator: "\n"), html: html)
        }
        return MailTemplates(templates: templates)
    }

    /// Subject, text and HTML of `type` with `values` substituted.
    func render(_ type: OobRequestType, values: [String: String]) -> Template {
        let template = templates[type] ?? Self.builtIn[type]!
        func fill(_ text: String, escape: Bool) -> String {
            var result = text
            for (name, value) in values {
                result = result.replacingOccurrences(of: "%\(name)%", with: escape ? value.htmlEscaped : value)
            }
            return result
        }
        // Subjects are single header lines: a value with a line break must not start a new header.
        let subject = fill(template.subject, escape: false).replacingOccurrences(of: "\r", with: " ")
            .replacingOccurrences(of: "\n", with: " ")
        return Template(
            subject: subject, text: fill(template.text, escape: false),
            html: template.html.map { fill($0, escape: true) })
    }
}
