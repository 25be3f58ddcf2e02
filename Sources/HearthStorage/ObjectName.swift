public import HearthCore

/// Cloud Storage's object-name rules: 1 to 1024 bytes of UTF-8, no carriage return or line feed.
///
/// Names are keys in the metadata database and never file paths (see `StorageLayout`), so `..` or an encoded slash
/// is an ordinary, harmless name there; the checks here are the ones Cloud Storage makes.
public enum ObjectName {
    /// The longest name, in UTF-8 bytes.
    public static let maxBytes = 1024

    /// Throws `INVALID_ARGUMENT` naming the broken rule.
    public static func validate(_ name: String) throws(HearthError) {
        let count = name.utf8.count
        guard count > 0 else { throw .invalidArgument("The object name must not be empty.") }
        guard count <= maxBytes else {
            throw .invalidArgument("The object name is \(count) bytes of UTF-8; the limit is \(maxBytes).")
        }
        guard !name.utf8.contains(0x0A), !name.utf8.contains(0x0D) else {
            throw .invalidArgument("The object name must not contain a carriage return or a line feed.")
        }
        // `String` turns invalid UTF-8 into U+FFFD when decoding a request; such a name was not valid UTF-8.
        guard !name.unicodeScalars.contains("\u{FFFD}") else {
            throw .invalidArgument("The object name must be valid UTF-8.")
        }
    }
}
