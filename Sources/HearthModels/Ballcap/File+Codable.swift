import Foundation
import Hearth

extension File: Codable {
    private enum Keys: String, CodingKey {
        case path, url, mimeType, metadata, additionalData
    }

    /// Reads the map Ballcap stores (`path`, `url`, `mimeType`, `metadata`, or `additionalData` from earlier
    /// versions). The file points into the default bucket of the app of the document being decoded, else of the
    /// default app.
    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let path = try container.decode(String.self, forKey: .path)
        let url = try container.decodeIfPresent(String.self, forKey: .url).flatMap { URL(string: $0) }
        let mimeType = try container.decodeIfPresent(MIMEType.self, forKey: .mimeType) ?? .octetStream(nil)
        let metadata =
            try container.decodeIfPresent([String: String].self, forKey: .metadata)
            ?? container.decodeIfPresent([String: String].self, forKey: .additionalData) ?? [:]
        let storage: Storage
        if let document = decoder.userInfo[.documentReference] as? DocumentReference {
            storage = Storage.storage(app: document.firestore.app)
        } else {
            storage = Storage.storage()
        }
        self.init(storage.reference(withPath: path), mimeType: mimeType, url: url, metadata: metadata)
    }

    /// Writes `path`, `url` (a string, or null), `mimeType` and `metadata`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(path, forKey: .path)
        try container.encode(url?.absoluteString, forKey: .url)
        try container.encode(mimeType, forKey: .mimeType)
        try container.encode(metadata, forKey: .metadata)
    }
}
