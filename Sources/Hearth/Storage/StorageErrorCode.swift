import Foundation

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The error domain of Storage errors bridged to `NSError`, as Firebase names it.
public let StorageErrorDomain = "FIRStorageErrorDomain"

/// What went wrong in a Storage call, numbered as Firebase numbers them — Hearth's `StorageErrorCode`.
///
/// Apps written against Firebase read it from the bridged `NSError` as they do there:
/// `StorageErrorCode(rawValue: (error as NSError).code)`; Swift code can also match the thrown ``StorageError``:
/// `catch let error as StorageError where error.code == .objectNotFound`.
public enum StorageErrorCode: Int, Sendable, Hashable, CaseIterable {
    /// An error the SDK could not classify (Firebase's answer to most `400`s).
    case unknown = -13000
    /// No object exists at the reference.
    case objectNotFound = -13010
    /// The bucket is not served.
    case bucketNotFound = -13011
    /// The project is not served.
    case projectNotFound = -13012
    /// A quota or the server's disk is exhausted.
    case quotaExceeded = -13013
    /// The request had no valid credentials: sign in again.
    case unauthenticated = -13020
    /// The storage rules do not allow the operation.
    case unauthorized = -13021
    /// An upload kept failing for longer than ``Storage/maxUploadRetryTime``.
    case retryLimitExceeded = -13030
    /// The bytes did not match the server's checksum.
    case nonMatchingChecksum = -13031
    /// The object is larger than the download's `maxSize`.
    case downloadSizeExceeded = -13032
    /// The task was cancelled.
    case cancelled = -13040
    /// The call's arguments are invalid (such as `maxResults` outside 1…1000).
    case invalidArgument = -13050
    /// An internal error of the SDK.
    case internalError = -13051
    /// A URL names a bucket other than the `Storage` instance's.
    case bucketMismatch = -13052
    /// A path or URL could not be parsed.
    case pathError = -13053
}

/// A Storage error: a ``StorageErrorCode``, a message, and the bucket and object it concerns.
///
/// Bridged to `NSError` in ``StorageErrorDomain`` with the code's raw value, and with `bucket` and `object` in its
/// user info, as Firebase's errors carry them.
public struct StorageError: CodedError {
    /// The code.
    public let code: StorageErrorCode
    /// What went wrong.
    public let message: String
    /// The bucket of the reference the call was made on, if any.
    public let bucket: String?
    /// The object path of the reference the call was made on, if any.
    public let object: String?
    /// Whether the network lost the request (no answer came), which an upload retries.
    var unreachable = false

    /// Creates an error.
    /// - Parameters:
    ///   - code: the code.
    ///   - message: what went wrong.
    ///   - bucket: the bucket concerned.
    ///   - object: the object path concerned.
    public init(_ code: StorageErrorCode, _ message: String, bucket: String? = nil, object: String? = nil) {
        self.code = code
        self.message = message
        self.bucket = bucket
        self.object = object
    }

    /// The Firebase error domain.
    public static let errorDomain = StorageErrorDomain

    /// The message, and `bucket` and `object` where known.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let bucket { info["bucket"] = bucket }
        if let object { info["object"] = object }
        return info
    }
}
