/// An engine that keeps the accounts somewhere other than `hearth.sqlite` (PostgreSQL), shared by every node that
/// uses it.
package protocol AccountStorage: Sendable {
    /// Runs `body` in one write transaction, committing when it returns and rolling back when it throws.
    func writeAccounts<T: Sendable>(_ body: (any AccountRows) throws -> T) throws -> T
    /// Runs `body` on one consistent read snapshot.
    func readAccounts<T: Sendable>(_ body: (any AccountRows) throws -> T) throws -> T
}
