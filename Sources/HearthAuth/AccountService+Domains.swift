/// Firebase's authorized domains: the hosts a `continueUrl` in mail may send people to, and the list the client
/// SDKs' project configuration names. The configured ones can be changed while the server runs (the console's
/// Accounts page, or `PATCH /admin/v2/projects/{p}/config`); a restart goes back to `--authorized-domains`.
extension AccountService {
    /// The authorized domains set at start (``AccountsConfiguration/authorizedDomains``) or since, in their order.
    public var authorizedDomains: [String] { domains.withLock { $0 } }

    /// The hosts authorized without being listed: those of the public and action URLs and, in development mode,
    /// `localhost` and `127.0.0.1`.
    public var impliedAuthorizedDomains: [String] {
        var implied: [String] = []
        for configured in [configuration.publicURL, configuration.actionURL] {
            if let configured, let host = Validation.host(of: configured), !implied.contains(host) {
                implied.append(host)
            }
        }
        if configuration.devMode {
            for host in ["localhost", "127.0.0.1"] where !implied.contains(host) { implied.append(host) }
        }
        return implied
    }

    /// Every authorized domain: the listed ones, then the implied ones, each once.
    public var allAuthorizedDomains: [String] {
        var all = authorizedDomains
        for host in impliedAuthorizedDomains where !all.contains(host) { all.append(host) }
        return all
    }

    /// Replaces the listed authorized domains (lower-cased; a repeated one is kept once).
    /// - Throws: `INVALID_CONFIG` naming the first entry that is not a host name.
    public func setAuthorizedDomains(_ hosts: [String]) throws(AuthError) {
        var listed: [String] = []
        for host in hosts {
            let lowered = host.lowercased()
            guard AccountsConfiguration.isValidAuthorizedDomain(lowered) else {
                throw AuthError(
                    "INVALID_CONFIG",
                    "\"\(host.prefix(100))\" is not a host name (such as app.example.com): no scheme, port or path")
            }
            if !listed.contains(lowered) { listed.append(lowered) }
        }
        guard listed.count <= AccountsConfiguration.maxAuthorizedDomains else {
            throw AuthError(
                "INVALID_CONFIG", "at most \(AccountsConfiguration.maxAuthorizedDomains) authorized domains")
        }
        domains.withLock { $0 = listed }
    }
}

extension AccountsConfiguration {
    /// The most authorized domains a project lists.
    public static let maxAuthorizedDomains = 100

    /// Whether `host` can be an authorized domain: a lower-case host name or IPv4 address, labels of letters, digits
    /// and hyphens separated by dots, at most 253 characters — no scheme, port, path or wildcard.
    public static func isValidAuthorizedDomain(_ host: String) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 253 else { return false }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.first != "-" && label.last != "-"
                && label.utf8.allSatisfy { byte in
                    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                }
        }
    }
}
