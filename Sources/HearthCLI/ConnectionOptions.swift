import HearthHTTP
import HearthServer

/// `hearth serve`'s connection limits (how many clients in total and from one address) and the proxies trusted to
/// say which address a request comes from.
enum ConnectionOptions {
    /// (flag, environment variable, config-file key) of each option.
    static let keys: [(flag: String, environment: String, file: String)] = [
        ("--max-connections", "HEARTH_MAX_CONNECTIONS", "maxConnections"),
        ("--max-connections-per-address", "HEARTH_MAX_CONNECTIONS_PER_ADDRESS", "maxConnectionsPerAddress"),
        ("--trusted-proxies", "HEARTH_TRUSTED_PROXIES", "trustedProxies"),
    ]

    /// The flags that take a value.
    static let valueFlags: Set<String> = Set(keys.map(\.flag))

    /// Lines for the options table of `hearth serve --help`; it starts with a line break because the table before
    /// it ends without one.
    static let help =
        "\n" + """
              --max-connections N     client connections open at once       HEARTH_MAX_CONNECTIONS (default 16384)
              --max-connections-per-address N                               HEARTH_MAX_CONNECTIONS_PER_ADDRESS
                                      connections from one client address;  (default 256)
                                      0: no per-address limit (counts TCP
                                      peers, so a proxy's connections too)
              --trusted-proxies LIST  comma-separated proxy addresses or    HEARTH_TRUSTED_PROXIES (default: none)
                                      CIDR ranges (127.0.0.1,10.0.0.0/8)
                                      whose X-Forwarded-For names the
                                      client per-address limits count,
                                      and whose X-Forwarded-Proto: https
                                      makes the console cookie Secure
            """

    /// Applies the options `value` resolves (flag > environment > file) to `configuration`.
    static func apply(_ value: (String) -> String?, to configuration: inout ServerConfiguration) throws {
        if let text = value("--max-connections") {
            guard let number = Int(text), (1...1_000_000).contains(number) else {
                throw CommandLineArguments.UsageError(description: "--max-connections must be 1…1000000, not \(text)")
            }
            configuration.maxConnections = number
        }
        if let text = value("--max-connections-per-address") {
            guard let number = Int(text), (0...1_000_000).contains(number) else {
                throw CommandLineArguments.UsageError(
                    description: "--max-connections-per-address must be 0…1000000, not \(text)")
            }
            configuration.maxConnectionsPerAddress = number
        }
        if let text = value("--trusted-proxies") {
            do {
                configuration.trustedProxies = try TrustedProxies(parsing: text)
            } catch {
                throw CommandLineArguments.UsageError(
                    description: "--trusted-proxies takes IP addresses or CIDR ranges (10.0.0.0/8), not \(error.entry)")
            }
        }
    }
}
