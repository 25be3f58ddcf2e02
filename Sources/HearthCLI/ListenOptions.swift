import HearthServer

/// `hearth serve`'s live-listener options: heartbeat interval and per-stream buffers.
enum ListenOptions {
    /// (flag, environment variable, config-file key) of each option.
    static let keys: [(flag: String, environment: String, file: String)] = [
        ("--listen-heartbeat", "HEARTH_LISTEN_HEARTBEAT", "listenHeartbeat"),
        ("--listen-buffer", "HEARTH_LISTEN_BUFFER", "listenBuffer"),
        ("--tree-stream-buffer", "HEARTH_TREE_STREAM_BUFFER", "treeStreamBuffer"),
    ]

    /// The flags that take a value.
    static let valueFlags: Set<String> = Set(keys.map(\.flag))

    /// Lines for the options table of `hearth serve --help`; it starts with a line break because the table before
    /// it ends without one.
    static let help =
        "\n" + """
              --listen-heartbeat S    seconds a listen stream may be silent HEARTH_LISTEN_HEARTBEAT (default 15)
                                      before it gets a heartbeat
              --listen-buffer BYTES   bytes that may wait for one listen    HEARTH_LISTEN_BUFFER (default 8388608)
                                      client; a slower client is cut off
              --tree-stream-buffer B  bytes that may wait for one tree      HEARTH_TREE_STREAM_BUFFER (default 16777216)
                                      stream client; a location larger than
                                      this is refused with `cancel`
            """

    /// Applies the options `value` resolves (flag > environment > file) to `configuration`.
    static func apply(_ value: (String) -> String?, to configuration: inout ServerConfiguration) throws {
        if let text = value("--listen-heartbeat") {
            guard let seconds = Double(text), seconds >= 0.05, seconds <= 3600 else {
                throw CommandLineArguments.UsageError(
                    description: "--listen-heartbeat must be 0.05…3600 seconds, not \(text)")
            }
            configuration.listen.heartbeatSeconds = seconds
        }
        if let text = value("--listen-buffer") {
            guard let bytes = Int(text), bytes >= 1024, bytes <= 1 << 30 else {
                throw CommandLineArguments.UsageError(
                    description: "--listen-buffer must be 1024…1073741824 bytes, not \(text)")
            }
            configuration.listen.bufferBytes = bytes
        }
        if let text = value("--tree-stream-buffer") {
            guard let bytes = Int(text), bytes >= 1024, bytes <= 1 << 30 else {
                throw CommandLineArguments.UsageError(
                    description: "--tree-stream-buffer must be 1024…1073741824 bytes, not \(text)")
            }
            configuration.listen.treeBufferBytes = bytes
        }
    }
}
