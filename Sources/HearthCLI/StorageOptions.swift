import HearthServer

/// `hearth serve`'s file-storage options: the maximum object size.
enum StorageOptions {
    /// (flag, environment variable, config-file key) of each option.
    static let keys: [(flag: String, environment: String, file: String)] = [
        ("--storage-max-object-bytes", "HEARTH_STORAGE_MAX_OBJECT_BYTES", "storageMaxObjectBytes")
    ]

    /// The flags that take a value.
    static let valueFlags: Set<String> = Set(keys.map(\.flag))

    /// Lines for the options table of `hearth serve --help`; it starts with a line break because the table before
    /// it ends without one.
    static let help =
        "\n" + """
              --storage-max-object-bytes BYTES  largest stored file   HEARTH_STORAGE_MAX_OBJECT_BYTES (default 5368709120)
            """

    /// Applies the options `value` resolves (flag > environment > file) to `configuration`.
    static func apply(_ value: (String) -> String?, to configuration: inout ServerConfiguration) throws {
        if let text = value("--storage-max-object-bytes") {
            guard let bytes = Int(text), bytes >= 0 else {
                throw CommandLineArguments.UsageError(
                    description: "--storage-max-object-bytes must be a number of bytes, not \(text)")
            }
            configuration.storage.maxObjectBytes = bytes
        }
    }
}
