internal import COpenSSL

/// A failure inside OpenSSL or libsodium, or input that is not a key or hash.
///
/// The description names the operation and the library's reason, never key material or passwords.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being done, e.g. `"RSA key generation"`.
    public var operation: String
    /// The library's reason, when it gave one.
    public var reason: String

    /// An error for `operation` with `reason`.
    public init(_ operation: String, reason: String) {
        self.operation = operation
        self.reason = reason
    }

    /// The operation and the library's reason.
    public var description: String { reason.isEmpty ? "\(operation) failed" : "\(operation) failed: \(reason)" }

    /// Drains OpenSSL's per-thread error queue into an error, so a later call does not report a stale reason.
    static func openSSL(_ operation: String) -> CryptoError {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return CryptoError(operation, reason: reasons.joined(separator: "; "))
    }
}
