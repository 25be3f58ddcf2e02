import Foundation
import HearthServer

/// `hearth serve --cors-origins`: the browser origins whose pages may call the APIs.
enum CORSOptions {
    /// (flag, environment variable, config-file key) of each option.
    static let keys: [(flag: String, environment: String, file: String)] = [
        ("--cors-origins", "HEARTH_CORS_ORIGINS", "corsOrigins")
    ]

    /// The flags that take a value.
    static let valueFlags: Set<String> = Set(keys.map(\.flag))

    /// Lines for the options table of `hearth serve --help`; it starts with a line break because the table before
    /// it ends without one.
    static let help =
        "\n" + """
              --cors-origins LIST     comma-separated browser origins       HEARTH_CORS_ORIGINS (default: none;
                                      (https://app.example.com) or *        any in --dev)
            """

    /// Applies the option `value` resolves (flag > environment > file) to `configuration`.
    static func apply(_ value: (String) -> String?, to configuration: inout ServerConfiguration) throws {
        guard let text = value("--cors-origins") else { return }
        let origins = text.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        for origin in origins where origin != "*" {
            guard origin.hasPrefix("http://") || origin.hasPrefix("https://"),
                !origin.dropFirst(origin.hasPrefix("https://") ? 8 : 7).contains("/")
            else {
                throw CommandLineArguments.UsageError(
                    description: "--cors-origins takes origins such as https://app.example.com (or *), not \(origin)")
            }
        }
        configuration.corsOrigins = origins
    }
}
