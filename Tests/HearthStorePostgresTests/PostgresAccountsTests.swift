import Foundation
import HearthPostgresTestSupport
import Testing

@testable import HearthAuth
@testable import HearthStorePostgres

/// The account rows' behaviour, run alike on SQLite (the accounts' own file) and on PostgreSQL, and across two
/// PostgreSQL nodes of one database.
@Suite("Accounts on both engines", TestCluster.requirement)
struct PostgresAccountsTests {
    /// An account with an email, as sign-up stores it.
    private static func account(_ uid: String, _ email: String) -> UserRecord {
        var user = UserRecord(uid: uid, validSince: 1, createdAt: 1_000)
        user.email = email
        user.passwordHash = "hash-\(uid)"
        return user
    }

    /// Sign-up, duplicate email, update, revocation, a one-time code used once, and delete, on `accounts`.
    private static func exercise(_ accounts: AccountDatabase) throws {
        try accounts.write { db in try UserRows.insert(account("u1", "a@example.com"), in: db) }
        #expect(
            authErrorCode { try accounts.write { db in try UserRows.insert(account("u2", "a@example.com"), in: db) } }
                == "EMAIL_EXISTS")
        #expect(
            authErrorCode { try accounts.write { db in try UserRows.insert(account("u1", "b@example.com"), in: db) } }
                == "DUPLICATE_LOCAL_ID")
        let found = try accounts.read { db in try UserRows.user(email: "a@example.com", in: db) }
        #expect(found?.uid == "u1")
        #expect(found?.passwordHash == "hash-u1")

        var updated = try #require(found)
        updated.displayName = "Ada"
        updated.emailVerified = true
        try accounts.write { db in try UserRows.update(updated, in: db) }
        let reread = try accounts.read { db in try UserRows.user(uid: "u1", in: db) }
        #expect(reread?.displayName == "Ada")
        #expect(reread?.emailVerified == true)

        let token: [UInt8] = Array(repeating: 7, count: 32)
        try accounts.write { db in
            try RefreshTokenRows.insert(
                hash: token, row: .init(uid: "u1", provider: "password", extraClaims: nil, createdAt: 5), in: db)
        }
        #expect(try accounts.read { db in try RefreshTokenRows.find(hash: token, in: db)?.uid } == "u1")
        try accounts.write { db in try RefreshTokenRows.deleteAll(uid: "u1", in: db) }
        #expect(try accounts.read { db in try RefreshTokenRows.find(hash: token, in: db) } == nil)

        let code = OobCodes.generate()
        try accounts.write { db in
            try OobCodeRows.insert(
                hash: code.hash,
                row: .init(uid: "u1", requestType: .verifyEmail, email: "a@example.com", newEmail: nil, expiresAt: 100),
                createdAt: 1, in: db)
        }
        #expect(
            authErrorCode { _ = try accounts.write { db in try OobCodes.take(hash: code.hash, at: 200, in: db) } }
                == "EXPIRED_OOB_CODE")
        #expect(try accounts.write { db in try OobCodes.take(hash: code.hash, at: 50, in: db) }.uid == "u1")
        #expect(
            authErrorCode { _ = try accounts.write { db in try OobCodes.take(hash: code.hash, at: 50, in: db) } }
                == "INVALID_OOB_CODE")

        #expect(try accounts.write { db in try UserRows.delete(uid: "u1", in: db) })
        #expect(try accounts.read { db in try UserRows.user(uid: "u1", in: db) } == nil)
        #expect(try accounts.read { db in try UserRows.count(in: db) } == 0)
    }

    private static func authErrorCode(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as AuthError {
            return error.code
        } catch {
            return "\(error)"
        }
    }

    @Test("the account rows behave alike on SQLite")
    func sqlite() throws {
        let directory = NSTemporaryDirectory() + "hearth-accounts-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let accounts = try AccountDatabase(directory: directory)
        defer { accounts.close() }
        try Self.exercise(accounts)
    }

    @Test("the account rows behave alike on PostgreSQL")
    func postgres() throws {
        let store = try PostgresDocumentStore(configuration: .init(conninfo: try TestCluster.freshDatabase()))
        defer { store.close() }
        try Self.exercise(AccountDatabase(storage: PostgresAccountStorage(store: store)))
    }

    @Test("an account one node signs up, the other node sees, and refuses its email again")
    func twoNodes() throws {
        let nodes = try TwoNodes()
        defer { nodes.close() }
        let first = AccountDatabase(storage: PostgresAccountStorage(store: nodes.first))
        let second = AccountDatabase(storage: PostgresAccountStorage(store: nodes.second))
        try first.write { db in try UserRows.insert(Self.account("u1", "a@example.com"), in: db) }
        #expect(try second.read { db in try UserRows.user(email: "a@example.com", in: db)?.uid } == "u1")
        #expect(
            Self.authErrorCode {
                try second.write { db in try UserRows.insert(Self.account("u2", "a@example.com"), in: db) }
            } == "EMAIL_EXISTS")
    }
}
