import HearthServer

/// `hearth serve`'s bounds on one read: how many names a `batchGet` may ask for and how many bytes of documents a
/// query, `batchGet` or listing page may answer.
enum ReadLimitOptions {
    /// (flag, environment variable, config-file key) of each option.
    static let keys: [(flag: String, environment: String, file: String)] = [
        ("--max-result-bytes", "HEARTH_MAX_RESULT_BYTES", "maxResultBytes"),
        ("--max-batch-get", "HEARTH_MAX_BATCH_GET", "maxBatchGet"),
    ]

    /// The flags that take a value.
    static let valueFlags: Set<String> = Set(keys.map(\.flag))

    /// Lines for the options table of `hearth serve --help`; it starts with a line break because the table before
    /// it ends without one.
    static let help =
        "\n" + """
              --max-result-bytes N    bytes of documents one query, batchGet HEARTH_MAX_RESULT_BYTES
                                      or listing page may answer            (default 67108864)
              --max-batch-get N       document names in one batchGet        HEARTH_MAX_BATCH_GET (default 10000)
            """

    /// Applies the options `value` resolves (flag > environment > file) to `configuration`.
    static func apply(_ value: (String) -> String?, to configuration: inout ServerConfiguration) throws {
        if let text = value("--max-result-bytes") {
            guard let number = Int(text), (1024...(1 << 40)).contains(number) else {
                throw CommandLineArguments.UsageError(
                    description: "--max-result-bytes must be 1024…1099511627776, not \(text)")
            }
            configuration.maxResultBytes = number
        }
        if let text = value("--max-batch-get") {
            guard let number = Int(text), (1...1_000_000).contains(number) else {
                throw CommandLineArguments.UsageError(description: "--max-batch-get must be 1…1000000, not \(text)")
            }
            configuration.maxBatchGetDocuments = number
        }
    }
}
