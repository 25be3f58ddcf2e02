/// Why the HTTP server could not start.
public struct HTTPServerError: Error, CustomStringConvertible, Equatable {
    /// The kind of failure, for callers that react differently to each.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        /// The configured port is already bound by another socket.
        public static let addressInUse = Code(name: "addressInUse")
        /// A configuration value is out of range or malformed.
        public static let invalidConfiguration = Code(name: "invalidConfiguration")
        /// `start()` was called on a server that was already started or stopped.
        public static let invalidState = Code(name: "invalidState")
        /// libmicrohttpd refused to start for another reason; `message` carries its explanation.
        public static let startFailed = Code(name: "startFailed")

        /// The code's name.
        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// A human-readable explanation naming the address or setting involved.
    public let message: String

    /// An error of the given kind.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The explanation, prefixed so it reads well in a log line.
    public var description: String { "HTTP server: \(message)" }
}
