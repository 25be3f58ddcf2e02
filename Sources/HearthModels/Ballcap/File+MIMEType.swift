extension File {
    /// A file's content type — Ballcap's `File.MIMEType`, stored as its MIME string.
    public enum MIMEType: Codable, Hashable, Sendable {
        /// `text/plain` (`.txt`).
        case plain
        /// `text/csv`.
        case csv
        /// `text/html`.
        case html
        /// `text/css`.
        case css
        /// `text/javascript` (`.js`).
        case javascript
        /// `application/octet-stream`, with the file extension to use, if any.
        case octetStream(String?)
        /// `application/pdf`.
        case pdf
        /// `application/zip`.
        case zip
        /// `application/x-tar`.
        case tar
        /// `application/x-lzh`.
        case lzh
        /// `image/jpeg` (`.jpg`).
        case jpeg
        /// `image/pjpeg` (`.jpg`).
        case pjpeg
        /// `image/png`.
        case png
        /// `image/gif`.
        case gif
        /// `video/mp4`.
        case mp4
        /// Any other type: its MIME string and file extension.
        case custom(String, String)

        private static let known: [(MIMEType, String, String)] = [
            (.plain, "text/plain", "txt"), (.csv, "text/csv", "csv"), (.html, "text/html", "html"),
            (.css, "text/css", "css"), (.javascript, "text/javascript", "js"), (.pdf, "application/pdf", "pdf"),
            (.zip, "application/zip", "zip"), (.tar, "application/x-tar", "tar"), (.lzh, "application/x-lzh", "lzh"),
            (.jpeg, "image/jpeg", "jpg"), (.pjpeg, "image/pjpeg", "jpg"), (.png, "image/png", "png"),
            (.gif, "image/gif", "gif"), (.mp4, "video/mp4", "mp4"),
        ]

        /// The MIME string.
        public var rawValue: String {
            switch self {
            case .octetStream: "application/octet-stream"
            case .custom(let type, _): type
            default: Self.known.first { $0.0 == self }?.1 ?? "application/octet-stream"
            }
        }

        /// The file extension (without the dot; `""` when none).
        public var fileExtension: String {
            switch self {
            case .octetStream(let suffix): suffix ?? ""
            case .custom(_, let suffix): suffix
            default: Self.known.first { $0.0 == self }?.2 ?? ""
            }
        }

        /// The type of a MIME string (`custom` for one not listed).
        /// - Parameter rawValue: such as `"image/png"`.
        public init(rawValue: String) {
            if rawValue == "application/octet-stream" {
                self = .octetStream(nil)
            } else {
                self = Self.known.first { $0.1 == rawValue }?.0 ?? .custom(rawValue, "")
            }
        }

        /// The type a file extension suggests (`custom("", ext)` for one not listed).
        /// - Parameter fileExtension: such as `"png"` or `"jpeg"`.
        public init(fileExtension: String) {
            let lowered = fileExtension.lowercased()
            if lowered == "jpeg" {
                self = .jpeg
            } else {
                self = Self.known.first { $0.2 == lowered }?.0 ?? .custom("", fileExtension)
            }
        }

        /// Decodes the MIME string.
        public init(from decoder: any Decoder) throws {
            self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
        }

        /// Encodes the MIME string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}
