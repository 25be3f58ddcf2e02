import HearthCore
import HearthHTTP
import HearthStorage

/// Object metadata in Firebase Storage's v0 JSON: numbers as strings, times in RFC 3339 with milliseconds, the
/// download tokens joined by commas.
enum StorageJSON {
    static func metadata(_ object: StoredObject) -> JSONValue {
        var fields = object.attributes.json
        fields["name"] = .string(object.name)
        fields["bucket"] = .string(object.bucket)
        fields["generation"] = .string(String(object.generation))
        fields["metageneration"] = .string(String(object.metageneration))
        fields["contentType"] = .string(object.attributes.contentType ?? defaultContentType)
        fields["timeCreated"] = .string(timestamp(object.timeCreatedMillis))
        fields["updated"] = .string(timestamp(object.updatedMillis))
        fields["storageClass"] = .string("STANDARD")
        fields["size"] = .string(String(object.size))
        fields["md5Hash"] = .string(object.md5Hash)
        fields["crc32c"] = .string(object.crc32c)
        fields["etag"] = .string(object.etag)
        fields["contentEncoding"] = .string(object.attributes.contentEncoding ?? "identity")
        fields["contentDisposition"] = .string(object.attributes.contentDisposition ?? "inline")
        fields["downloadTokens"] = .string(object.downloadTokens.joined(separator: ","))
        if fields["metadata"] == nil { fields["metadata"] = .object([:]) }
        return .object(fields)
    }

    static func response(_ object: StoredObject, headers: HTTPHeaders = []) -> HTTPResponse {
        var response = Responses.json(metadata(object).serialized())
        response.headers.append(contentsOf: headers)
        return response
    }

    /// A listing: `{"prefixes": […], "items": [{"name", "bucket"}], "nextPageToken"}`.
    static func listing(_ listing: ObjectListing, bucket: String) -> HTTPResponse {
        var fields: [String: JSONValue] = [
            "prefixes": .array(listing.prefixes.map { .string($0) }),
            "items": .array(listing.items.map { .object(["name": .string($0.name), "bucket": .string(bucket)]) }),
        ]
        if let token = listing.nextPageToken { fields["nextPageToken"] = .string(token) }
        return Responses.json(JSONValue.object(fields).serialized())
    }

    static let defaultContentType = "application/octet-stream"

    /// `2024-05-01T12:00:00.123Z`.
    static func timestamp(_ millis: Int64) -> String {
        // Six fractional digits cut to the three Firebase shows.
        String(Timestamp(microseconds: millis * 1000).rfc3339.dropLast(4)) + "Z"
    }
}
