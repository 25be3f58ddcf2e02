import Foundation

/// The bytes an upload sends: data in memory, or a file read chunk by chunk (never whole).
enum UploadSource: Sendable {
    case data(Data)
    case file(URL)

    /// The total size.
    func size() throws -> Int64 {
        switch self {
        case .data(let data): return Int64(data.count)
        case .file(let url):
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            return (attributes[.size] as? NSNumber)?.int64Value ?? 0
        }
    }

    /// `length` bytes from `offset`.
    func read(_ offset: Int64, _ length: Int64) throws -> Data {
        switch self {
        case .data(let data):
            let start = data.startIndex + Int(offset)
            return data.subdata(in: start..<(start + Int(length)))
        case .file(let url):
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(offset))
            return try handle.read(upToCount: Int(length)) ?? Data()
        }
    }

    /// The MIME type a file's extension suggests, as Firebase infers one for `putFile` without a content type.
    var inferredContentType: String? {
        guard case .file(let url) = self else { return nil }
        let types: [String: String] = [
            "txt": "text/plain", "html": "text/html", "htm": "text/html", "css": "text/css", "csv": "text/csv",
            "js": "text/javascript", "json": "application/json", "pdf": "application/pdf", "zip": "application/zip",
            "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
            "heic": "image/heic", "svg": "image/svg+xml", "mp4": "video/mp4", "mov": "video/quicktime",
            "mp3": "audio/mpeg", "m4a": "audio/mp4", "wav": "audio/wav",
        ]
        return types[url.pathExtension.lowercased()]
    }
}
