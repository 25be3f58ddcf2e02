import HearthServer

/// `hearth serve`'s connection limits: how many clients in total and from one address.
enum ConnectionOptions {
    /// (flag, environment variable, config-file key) of each option.
    static let keys: [(flag: String, environment: String, file: String)] = [
        ("--max-connections", "HEARTH_MAX_CONNECTIONS", "maxConnections"),
        ("--max-connections-per-address", "HEARTH_MAX_CONNECTIONS_PER_ADDRESS", "maxConnectionsPerAddress"),
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
                                      0: no per-address limit
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
    }
}
