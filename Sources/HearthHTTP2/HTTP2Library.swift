internal import CNGHTTP2

/// The HTTP/2 library the gRPC transport runs on: libnghttp2, as curl, nginx and Apache use it.
public enum HTTP2Library {
    /// The oldest libnghttp2 Hearth is written against (Debian 12's).
    public static let minimumVersion = "1.52.0"

    /// The linked libnghttp2's version (`1.52.0`), or `nil` when it is older than ``minimumVersion``.
    public static var version: String? {
        // 0x013400 is 1.52.0: nghttp2_version returns NULL when the library is older than the number given.
        guard let info = nghttp2_version(0x01_34_00), let text = info.pointee.version_str else { return nil }
        return String(cString: text)
    }
}
