public import Foundation

/// What ``AuthErrorCode`` and ``FirestoreErrorCode`` share: a Firebase-numbered code, a message a person can read,
/// and the `NSError` bridging Firebase apps inspect (`domain`, `code`, `localizedDescription`).
public protocol CodedError: Error, Sendable, Hashable, CustomStringConvertible, CustomNSError {
    /// The codes, numbered as Firebase numbers them.
    associatedtype Code: RawRepresentable<Int>, Sendable, Hashable
    /// The code.
    var code: Code { get }
    /// What went wrong.
    var message: String { get }
}

extension CodedError {
    /// The bridged `NSError` code: the code's Firebase number.
    public var errorCode: Int { code.rawValue }
    /// The bridged `NSError` user info, with the message as its localized description.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
