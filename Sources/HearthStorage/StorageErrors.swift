import Foundation
import HearthCore

/// The file store's errors, each in the shared code set so every API renders it in its own envelope.
enum StorageErrors {
    /// A failed system call; a full disk (or file-size limit) is the caller's `RESOURCE_EXHAUSTED`, anything else an
    /// internal error whose detail only the log keeps.
    static func io(_ action: String, _ code: Int32) -> HearthError {
        if code == ENOSPC || code == EDQUOT || code == EFBIG {
            return HearthError(
                .resourceExhausted, "The server's disk is full: could not \(action); nothing was stored.")
        }
        return .internal("Could not \(action): \(String(cString: strerror(code))).")
    }

    static func tooLarge(_ limit: Int) -> HearthError {
        HearthError(.invalidArgument, "The object is larger than the maximum object size of \(limit) bytes.")
    }
}
