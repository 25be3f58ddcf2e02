/// The rules a decoded value is held to whatever its encoding: Firestore's typed JSON and protobuf both come here,
/// so a reference or a geo point is accepted or refused the same way on REST and on gRPC.
extension Value {
    /// What a reference must look like, for error messages.
    static let referenceRule =
        "referenceValue must be a document name, projects/{project}/databases/{database}/documents/{collection}/{document}"

    /// Checks a `referenceValue`: a document name, and for a written value (`reading.checksReferenceIDs`) IDs that
    /// follow a document path's rules.
    static func checkReference(
        _ text: String, reading: ValueReading, at location: @autoclosure () -> String
    ) throws(HearthError) {
        guard isWellFormedReference(text) else {
            throw .invalidArgument("Invalid value at '\(location())': \(referenceRule).")
        }
        // A written reference's IDs are held to the rules a document path's are (no reserved `__.*__`, no
        // `.`/`..`), so it can always be followed; an operand only positions and may name `__id…__` bounds.
        guard reading.checksReferenceIDs else { return }
        for id in text.split(separator: "/", omittingEmptySubsequences: false).dropFirst(5) {
            do {
                try ResourcePath.validate(id: String(id), in: text)
            } catch {
                throw .invalidArgument(
                    "Invalid value at '\(location())': referenceValue \"\(text.prefix(200))\": \(error.message).")
            }
        }
    }

    /// Checks a `geoPointValue`'s coordinates.
    static func checkGeoPoint(
        latitude: Double, longitude: Double, at location: @autoclosure () -> String
    ) throws(HearthError) {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw .invalidArgument(
                "Invalid value at '\(location())': latitude must be within [-90, 90] and longitude within [-180, 180]."
            )
        }
    }

    private static func isWellFormedReference(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count >= 7 && parts.count % 2 == 1 && parts[0] == "projects" && parts[2] == "databases"
            && parts[4] == "documents" && !parts.contains(where: \.isEmpty)
    }
}
