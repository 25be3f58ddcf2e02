/// A small hand-written parser for `--flag value`, `--flag=value` and `--switch` arguments.
struct CommandLineArguments {
    /// A problem with the arguments, with a message for the user.
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    private(set) var values: [String: String] = [:]
    private(set) var switches: Set<String> = []
    private(set) var positional: [String] = []

    /// Parses `arguments` given which flags take a value and which are switches.
    init(_ arguments: some Sequence<String>, valueFlags: Set<String>, switchFlags: Set<String>) throws(UsageError) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard argument.hasPrefix("-"), argument != "-" else {
                positional.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if valueFlags.contains(name) {
                guard let value = inlineValue ?? iterator.next() else {
                    throw UsageError(description: "\(name) needs a value")
                }
                values[name] = value
            } else if switchFlags.contains(name) {
                guard inlineValue == nil else { throw UsageError(description: "\(name) takes no value") }
                switches.insert(name)
            } else {
                throw UsageError(description: "unknown option \(name)")
            }
        }
    }
}

extension CommandLineArguments {
    /// The data directory a command works on: `--data`, else `HEARTH_DATA`, else `./hearth-data`, as `serve`'s.
    func dataDirectory(environment: [String: String]) -> String {
        values["--data"] ?? environment["HEARTH_DATA"] ?? "./hearth-data"
    }
}
