import HearthSQLite
import Testing

@testable import HearthAuth

/// A database that cannot grow (a full disk, as SQLite reports it: `SQLITE_FULL`) answers account writes with 503
/// `UNAVAILABLE`, as the documents and the tree do, and leaves nothing half-written.
@Suite("Accounts on a full database")
struct FullDatabaseTests {
    @Test("sign-up on a full database is 503 UNAVAILABLE, creates no account, and works again once there is room")
    func signUpOnFullDatabase() throws {
        let fixture = try Fixture()
        _ = try fixture.signUp("first@example.com")
        // SQLite's page limit stands in for the disk: no new page can be had, exactly as with a full disk.
        let pages = try fixture.service.database.read { db in
            try #require(db as? SQLiteAccountRows).db.fetchOne("PRAGMA page_count")?.int(0) ?? 0
        }
        try fixture.service.database.write { db in
            try #require(db as? SQLiteAccountRows).db.execute("PRAGMA max_page_count = " + String(pages))
        }
        var failure: AuthError?
        do {
            for index in 0..<500 { _ = try fixture.signUp("user\(index)@example.com") }
        } catch {
            failure = error as? AuthError
        }
        let error = try #require(failure, "500 sign-ups fit in a database that may not grow")
        #expect(error.status == 503, "\(error)")
        #expect(error.statusName == "UNAVAILABLE")
        #expect(error.code == "UNAVAILABLE")
        try fixture.service.database.write { db in
            try #require(db as? SQLiteAccountRows).db.execute("PRAGMA max_page_count = 1073741823")
        }
        #expect(authErrorCode { _ = try fixture.signUp("first@example.com") } == "EMAIL_EXISTS")
        _ = try fixture.signUp("after@example.com")
    }
}
