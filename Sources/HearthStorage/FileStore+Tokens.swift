import Foundation
public import HearthCore

extension FileStore {
    /// Adds a new download token to the object.
    public func createToken(bucket: String, name: String) throws(HearthError) -> StoredObject {
        try updateMetadata(bucket: bucket, name: name) { object in
            object.downloadTokens.append(UUID().uuidString.lowercased())
        }
    }

    /// Removes the download token `token` from the object.
    public func deleteToken(_ token: String, bucket: String, name: String) throws(HearthError) -> StoredObject {
        try updateMetadata(bucket: bucket, name: name) { object throws(HearthError) in
            guard object.downloadTokens.contains(token) else {
                throw .notFound("The object has no such download token.")
            }
            object.downloadTokens.removeAll { $0 == token }
        }
    }
}
