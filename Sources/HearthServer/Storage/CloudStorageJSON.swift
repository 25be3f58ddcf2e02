import HearthCore
import HearthHTTP
import HearthStorage

/// Object resources in the Cloud Storage JSON API's format (`storage#object`), as `google-cloud-storage` reads them.
enum CloudStorageJSON {
    static func object(_ object: StoredObject, origin: String) -> JSONValue {
        var fields = object.attributes.json
        let encodedName = StorageAPI.percentEncoded(object.name)
        let encodedBucket = StorageAPI.percentEncoded(object.bucket)
        fields["kind"] = .string("storage#object")
        fields["id"] = .string("\(object.bucket)/\(object.name)/\(object.generation)")
        fields["selfLink"] = .string("\(origin)/storage/v1/b/\(encodedBucket)/o/\(encodedName)")
        fields["mediaLink"] = .string(
            "\(origin)/download/storage/v1/b/\(encodedBucket)/o/\(encodedName)?generation=\(object.generation)"
                + "&alt=media")
        fields["name"] = .string(object.name)
        fields["bucket"] = .string(object.bucket)
        fields["generation"] = .string(String(object.generation))
        fields["metageneration"] = .string(String(object.metageneration))
        fields["contentType"] = .string(object.attributes.contentType ?? StorageJSON.defaultContentType)
        fields["storageClass"] = .string("STANDARD")
        fields["size"] = .string(String(object.size))
        fields["md5Hash"] = .string(object.md5Hash)
        fields["crc32c"] = .string(object.crc32c)
        fields["etag"] = .string(object.etag)
        fields["timeCreated"] = .string(StorageJSON.timestamp(object.timeCreatedMillis))
        fields["updated"] = .string(StorageJSON.timestamp(object.updatedMillis))
        fields["timeStorageClassUpdated"] = .string(StorageJSON.timestamp(object.timeCreatedMillis))
        if !object.downloadTokens.isEmpty {
            var metadata = object.attributes.custom
            // Where the Admin SDKs and the console keep Firebase's download tokens.
            metadata["firebaseStorageDownloadTokens"] = object.downloadTokens.joined(separator: ",")
            fields["metadata"] = .object(metadata.mapValues { .string($0) })
        }
        return .object(fields)
    }

    static func response(_ object: StoredObject, origin: String, status: Int = 200) -> HTTPResponse {
        Responses.json(Self.object(object, origin: origin).serialized(), status: status)
    }

    static func listing(_ listing: ObjectListing, origin: String) -> HTTPResponse {
        var fields: [String: JSONValue] = [
            "kind": "storage#objects", "items": .array(listing.items.map { object($0, origin: origin) }),
            "prefixes": .array(listing.prefixes.map { .string($0) }),
        ]
        if let token = listing.nextPageToken { fields["nextPageToken"] = .string(token) }
        return Responses.json(JSONValue.object(fields).serialized())
    }

    /// How resumable uploads answer in this API: 308 with `Range: bytes=0-N` while incomplete, the object when done.
    static func answers(origin: String) -> UploadAnswers {
        let progress: @Sendable (Int64) -> HTTPResponse = { received in
            var headers: HTTPHeaders = []
            if received > 0 { headers.add(name: "Range", value: "bytes=0-\(received - 1)") }
            return HTTPResponse(status: 308, headers: headers)
        }
        // Cloud Storage answers a chunk that does not start where the session stands with where it stands.
        return UploadAnswers(
            stored: { response($0, origin: origin) }, progress: progress, moved: { _, received in progress(received) })
    }
}
