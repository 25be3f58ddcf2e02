import Foundation
import HearthCore
import HearthHTTP

/// Writes sent with `X-Hearth-Write-Id`, as the Hearth SDK sends its queued writes: the server records the key and
/// its answer in the write's transaction (`WriteReceipt`), and a resend with a known key gets the recorded answer
/// without applying the write again — so a write whose answer was lost (connection broken after the commit) and
/// that the client sends again is applied exactly once, increments included. Requests without the header take the
/// usual path.
enum WriteIdempotency {
    /// The header.
    static let header = "X-Hearth-Write-Id"

    /// The longest key accepted.
    static let maxKeyLength = 128

    /// Test only: with `HEARTH_TEST_EXIT_AFTER_RECEIPT=1` the process ends right after the first write carrying a
    /// key commits and before it is answered — a deterministic "applied, answer lost" for the SDK's tests.
    static let exitAfterReceipt = ProcessInfo.processInfo.environment["HEARTH_TEST_EXIT_AFTER_RECEIPT"] == "1"

    /// The request's key: `nil` without the header; otherwise 1 to 128 letters, digits, `-` or `_`.
    static func key(of request: HTTPRequest) throws(HearthError) -> String? {
        guard let key = request.headers[header] else { return nil }
        guard (1...maxKeyLength).contains(key.utf8.count), key.utf8.allSatisfy(isKeyByte) else {
            throw .invalidArgument("\(header) must be 1 to \(maxKeyLength) ASCII letters, digits, '-' or '_'.")
        }
        return key
    }

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// Called when a write with a key has committed, before its answer is sent.
    static func committed() {
        if exitAfterReceipt { _exit(0) }
    }
}
