import Foundation

/// URL-safe base64 without padding, for opaque tokens that travel in URLs and JSON.
public enum Base64URL {
    /// Encodes bytes.
    public static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Encodes bytes in standard, padded base64 (what protobuf JSON writes for `bytes`).
    public static func encodeStandard(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Decodes text in either base64 alphabet, padded or not; `nil` when it is not base64.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var normalized = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch normalized.utf8.count % 4 {
        case 1: return nil
        case 2: normalized += "=="
        case 3: normalized += "="
        default: break
        }
        return Data(base64Encoded: normalized).map { [UInt8]($0) }
    }
}
