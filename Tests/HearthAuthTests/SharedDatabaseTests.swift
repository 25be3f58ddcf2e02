import Foundation
import HearthAuth
import HearthCore
import HearthMail
import HearthStoreSQLite
import Testing

/// The accounts as the server runs them: on its `SQLiteDatabase`, every write a job on the database's one writer.
@Suite("Accounts on the server's database")
struct SharedDatabaseTests {
    private static func configuration(_ directory: String) -> AccountsConfiguration {
        var configuration = AccountsConfiguration(projectID: "demo-test", dataDirectory: directory)
        configuration.devMode = true
        configuration.passwordHashIterations = 1
        configuration.passwordHashMemoryBytes = 8192
        return configuration
    }

    @Test("sign-up and sign-in write through the database's writer; closing the accounts leaves the database open")
    func accountsShareTheWriter() throws {
        let directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("hearth-auth-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try SQLiteDatabase(configuration: SQLiteDatabase.Configuration(directory: directory))
        defer { database.close() }
        let service = try AccountService(
            configuration: Self.configuration(directory), mailer: Outbox(), database: database)
        var request = SignUpRequest()
        request.email = "ada@example.com"
        request.password = "secret-pw"
        let signedUp = try service.signUp(request, context: Fixture.client)
        let signedIn = try service.signInWithPassword(
            email: "ada@example.com", password: "secret-pw", context: Fixture.client)
        #expect(signedIn.user.uid == signedUp.user.uid)
        #expect(authErrorCode { _ = try service.signUp(request, context: Fixture.client) } == "EMAIL_EXISTS")
        service.close()
        // The database is the server's: a second service on it finds the account.
        let again = try AccountService(
            configuration: Self.configuration(directory), mailer: Outbox(), database: database)
        defer { again.close() }
        let found = try again.lookup(uids: [signedUp.user.uid], emails: [], phoneNumbers: [])
        #expect(found.map(\.email) == ["ada@example.com"])
    }
}
