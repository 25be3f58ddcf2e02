import Foundation

/// The command line of `hearth-todo`.
struct TerminalOptions {
    var server = URL(string: "http://127.0.0.1:8080")!
    var project = "demo"
    var email = ""
    var password = ""
    var storage: URL?
    var help = false

    static let usage = """
        usage: hearth-todo --email EMAIL --password PASSWORD [--server URL] [--project ID] [--storage DIR]

          --server URL      the Hearth server (default $HEARTH_SERVER or http://127.0.0.1:8080, as `make run` serves)
          --project ID      the project (default demo)
          --email, --password
                            the account; it is created the first time
          --storage DIR     where the session and the offline cache live (default: the SDK's)
        Environment: HEARTH_TODO_EMAIL, HEARTH_TODO_PASSWORD stand in for the flags.
        """

    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ arguments: [String]) throws -> TerminalOptions {
        var options = TerminalOptions()
        let environment = ProcessInfo.processInfo.environment
        options.email = environment["HEARTH_TODO_EMAIL"] ?? ""
        options.password = environment["HEARTH_TODO_PASSWORD"] ?? ""
        if let server = environment["HEARTH_SERVER"], let url = URL(string: server), url.scheme != nil {
            options.server = url
        }
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            if flag == "--help" || flag == "-h" {
                options.help = true
                continue
            }
            guard let value = rest.popFirst() else { throw Invalid(description: "\(flag) needs a value") }
            switch flag {
            case "--server":
                guard let url = URL(string: value), url.scheme != nil else {
                    throw Invalid(description: "not a URL: \(value)")
                }
                options.server = url
            case "--project": options.project = value
            case "--email": options.email = value
            case "--password": options.password = value
            case "--storage": options.storage = URL(fileURLWithPath: value)
            default: throw Invalid(description: "unknown option \(flag)")
            }
        }
        if !options.help && (options.email.isEmpty || options.password.isEmpty) {
            throw Invalid(description: "--email and --password are required")
        }
        return options
    }
}
