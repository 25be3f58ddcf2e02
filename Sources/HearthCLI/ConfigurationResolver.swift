import Foundation
import HearthCore
import HearthLog
import HearthServer
import HearthStore

/// Merges the sources of configuration: flags win over `HEARTH_*` environment variables, which win over the
/// config file, which wins over the defaults.
enum ConfigurationResolver {
    /// (flag, environment variable, config-file key) of every option `hearth serve` resolves: the one place they are
    /// declared, each group of options adding its own.
    static let keys: [(flag: String, environment: String, file: String)] =
        [
            ("--host", "HEARTH_HOST", "host"), ("--port", "HEARTH_PORT", "port"), ("--data", "HEARTH_DATA", "data"),
            ("--project", "HEARTH_PROJECT", "project"), ("--rules", "HEARTH_RULES", "rules"),
            ("--database-rules", "HEARTH_DATABASE_RULES", "databaseRules"),
            ("--storage-rules", "HEARTH_STORAGE_RULES", "storageRules"),
            ("--log-level", "HEARTH_LOG_LEVEL", "logLevel"),
            ("--threads", "HEARTH_THREADS", "threads"), ("--dev", "HEARTH_DEV", "dev"),
            ("--indexes", "HEARTH_INDEXES", "indexes"), ("--store", "HEARTH_STORE", "store"),
        ] + AccountsOptions.keys + ProvidersOptions.keys + ListenOptions.keys + CORSOptions.keys
        + ConnectionOptions.keys + StorageOptions.keys + ReadLimitOptions.keys

    /// `hearth serve --help`'s `--config` entry: every key a config file may hold, from ``keys``, wrapped in the
    /// options table's description column.
    static var configHelp: String {
        let indent = String(repeating: " ", count: 26)
        var lines = [
            "  --config FILE           JSON file of option values by key:    HEARTH_CONFIG",
            indent + "(flags and HEARTH_* variables win)",
        ]
        var line = indent
        for (index, key) in keys.map(\.file).enumerated() {
            let word = key + (index == keys.count - 1 ? "" : ",")
            if line.count > indent.count, line.count + 1 + word.count > 118 {
                lines.append(line)
                line = indent
            }
            line += (line.count > indent.count ? " " : "") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n") + "\n"
    }

    static func resolve(flags: CommandLineArguments, environment: [String: String]) throws -> ServerConfiguration {
        var file: [String: String] = [:]
        if let path = flags.values["--config"] ?? environment["HEARTH_CONFIG"] {
            file = try readConfigFile(path)
        }
        func value(_ flag: String) -> String? {
            let key = keys.first { $0.flag == flag }!
            if flag == "--dev", flags.switches.contains("--dev") { return "1" }
            return flags.values[flag] ?? environment[key.environment].flatMap { $0.isEmpty ? nil : $0 }
                ?? file[key.file]
        }
        func fail(_ message: String) -> CommandLineArguments.UsageError {
            CommandLineArguments.UsageError(description: message)
        }
        var configuration = ServerConfiguration()
        configuration.threads = max(2, ProcessInfo.processInfo.activeProcessorCount)
        if let host = value("--host") {
            guard host.split(separator: ".").count == 4, host.split(separator: ".").allSatisfy({ UInt8($0) != nil })
            else {
                throw fail("--host must be an IPv4 address such as 127.0.0.1, not \(host)")
            }
            configuration.host = host
        }
        if let port = value("--port") {
            guard let number = Int(port), (0...65535).contains(number) else {
                throw fail("--port must be 0…65535, not \(port)")
            }
            configuration.port = number
        }
        if let data = value("--data") { configuration.dataDirectory = data }
        if let project = value("--project") {
            // `demo,shop`: the first is the default project, the others are served beside it (`projects/{id}`).
            let ids = project.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard let first = ids.first, !first.isEmpty, !first.contains("/") else {
                throw fail("--project must be a project ID without '/'")
            }
            for id in ids.dropFirst() where !ServerConfiguration.isServableProjectID(id) || id == first {
                throw fail(
                    "--project: \"\(id)\" cannot be served beside \(first) (1 to 100 letters, digits, '-', '_' or '.', each once)"
                )
            }
            guard Set(ids).count == ids.count, ids.count <= 64 else {
                throw fail("--project lists each project once, at most 64")
            }
            configuration.projectID = first
            configuration.additionalProjects = Array(ids.dropFirst())
        }
        if let dev = value("--dev") {
            guard
                let flag = ["1": true, "true": true, "yes": true, "0": false, "false": false, "no": false][
                    dev.lowercased()]
            else {
                throw fail("HEARTH_DEV must be 1 or 0, not \(dev)")
            }
            configuration.devMode = flag
        }
        for (flag, keyPath) in [
            ("--rules", \ServerConfiguration.rulesFile), ("--database-rules", \ServerConfiguration.databaseRulesFile),
            ("--storage-rules", \ServerConfiguration.storageRulesFile),
            ("--indexes", \ServerConfiguration.indexesFile),
        ] {
            if let path = value(flag) {
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw fail("\(flag): cannot read \(path)")
                }
                configuration[keyPath: keyPath] = path
            }
        }
        if let store = value("--store") {
            guard let location = StoreLocation(argument: store) else {
                throw fail("--store must be sqlite or a postgres:// URL, not \(store.prefix(40))")
            }
            configuration.store = location
        }
        if let level = value("--log-level") {
            guard let parsed = Logger.Level(name: level) else {
                throw fail("--log-level must be debug, info, warning or error")
            }
            configuration.logLevel = parsed
        }
        if let threads = value("--threads") {
            guard let number = Int(threads), (1...256).contains(number) else { throw fail("--threads must be 1…256") }
            configuration.threads = number
        }
        try AccountsOptions.apply(value, switches: flags.switches, environment: environment, to: &configuration)
        try ProvidersOptions.apply(value, switches: flags.switches, to: &configuration)
        try ListenOptions.apply(value, to: &configuration)
        try StorageOptions.apply(value, to: &configuration)
        try CORSOptions.apply(value, to: &configuration)
        try ConnectionOptions.apply(value, to: &configuration)
        try ReadLimitOptions.apply(value, to: &configuration)
        // For the browser tests only (so not in `--help`): index builds stop after this many steps of 500 documents,
        // which leaves a build half done for the console to show.
        if let steps = environment["HEARTH_TEST_INDEX_BUILD_STEPS"] {
            guard let count = Int(steps), count >= 0 else {
                throw fail("HEARTH_TEST_INDEX_BUILD_STEPS must be a number of steps, not \(steps)")
            }
            configuration.indexBuildGate = IndexBuildGate(allowing: count)
        }
        return configuration
    }

    private static func readConfigFile(_ path: String) throws -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandLineArguments.UsageError(description: "--config: cannot read \(path)")
        }
        guard case .object(let object) = try JSONParser.parse([UInt8](data)) else {
            throw CommandLineArguments.UsageError(description: "--config: \(path) must hold a JSON object")
        }
        var values: [String: String] = [:]
        for (key, value) in object {
            guard keys.contains(where: { $0.file == key }) else {
                throw CommandLineArguments.UsageError(description: "--config: unknown key \"\(key)\" in \(path)")
            }
            switch value {
            case .string(let text): values[key] = text
            case .integer(let number): values[key] = String(number)
            case .bool(let flag): values[key] = flag ? "1" : "0"
            case .object where ProvidersOptions.objectKeys.contains(key): values[key] = value.jsonString
            default:
                throw CommandLineArguments.UsageError(
                    description: "--config: \"\(key)\" must be a string, number or boolean")
            }
        }
        return values
    }
}
