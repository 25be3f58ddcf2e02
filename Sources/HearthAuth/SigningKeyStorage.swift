/// One signing key as kept: its ID, its private key in PEM, and when it was made and retired (Unix seconds).
package struct StoredSigningKey: Sendable, Equatable {
    /// The key's ID (`kid`): a digest of its public key.
    package var id: String
    /// The RSA private key, PEM-encoded.
    package var pem: String
    /// When the key was made.
    package var createdAt: Int64
    /// When it stopped signing; `nil` while it signs.
    package var retiredAt: Int64?

    /// A stored key.
    package init(id: String, pem: String, createdAt: Int64, retiredAt: Int64?) {
        self.id = id
        self.pem = pem
        self.createdAt = createdAt
        self.retiredAt = retiredAt
    }
}

/// Where the keys that sign ID tokens are kept: files in the data directory (one node, ``SigningKeyFiles``), or a
/// table every node of a deployment reads (PostgreSQL), so a token one node signed verifies on all of them and a
/// rotation on one reaches the others.
package protocol SigningKeyStorage: Sendable {
    /// Every key on record, oldest first.
    func keys() throws(AuthError) -> [StoredSigningKey]

    /// Changes the keyring in one step that no other change interleaves with (two nodes starting at once make one
    /// first key, not two): `change` gets the keys on record and returns the new list, or `nil` to leave it as it
    /// is. A key missing from the new list is deleted.
    /// - Returns: the keys on record afterwards, oldest first.
    func update(
        _ change: ([StoredSigningKey]) throws(AuthError) -> [StoredSigningKey]?
    ) throws(AuthError) -> [StoredSigningKey]
}
