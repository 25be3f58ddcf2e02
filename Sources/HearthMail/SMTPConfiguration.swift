/// Where and how `SMTPMailer` delivers.
public struct SMTPConfiguration: Sendable, Equatable {
    /// How the connection is protected.
    public enum Security: String, Sendable, Equatable, CaseIterable {
        /// Plain SMTP. Only for a relay on the same host or a test sink.
        case none
        /// Plain connection upgraded with `STARTTLS`; the upgrade is required, never optional (port 587).
        case startTLS = "starttls"
        /// TLS from the first byte, "SMTPS" (port 465).
        case tls
    }

    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// Connection protection.
    public var security: Security
    /// The user name for `AUTH`, if the server wants one.
    public var username: String?
    /// The password for `AUTH`. Never logged.
    public var password: String?
    /// The sender used when a message names none: `noreply@example.com` or `Name <noreply@example.com>`.
    public var from: String
    /// Seconds to wait for the connection and for the whole conversation.
    public var timeoutSeconds: Int = 30
    /// Accept any server certificate. Only for test servers with self-signed certificates.
    public var allowInsecureTLS: Bool = false

    /// A configuration for `host:port`.
    public init(
        host: String, port: Int, security: Security, username: String? = nil, password: String? = nil, from: String
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.from = from
    }

    /// The libcurl URL: `smtp://` or `smtps://`, with IPv6 literals in brackets.
    var url: String {
        let scheme = security == .tls ? "smtps" : "smtp"
        let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(hostPart):\(port)"
    }
}
