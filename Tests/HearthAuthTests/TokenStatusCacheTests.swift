import Synchronization
import Testing

@testable import HearthAuth

/// Account status for ID-token checks is read once and reused, but never outlives a write to the accounts.
@Suite struct TokenStatusCacheTests {
    @Test func aStatusIsReadOnceUntilAWriteEmptiesTheCache() throws {
        let cache = TokenStatusCache(lifetime: .seconds(3600))
        let reads = Mutex(0)
        let read = { () throws(AuthError) -> TokenStatusCache.Status? in
            reads.withLock { $0 += 1 }
            return (disabled: false, validSince: 7)
        }
        #expect(try cache.status(uid: "u", read: read)?.validSince == 7)
        #expect(try cache.status(uid: "u", read: read)?.validSince == 7)
        #expect(reads.withLock { $0 } == 1)
        cache.invalidate()
        _ = try cache.status(uid: "u", read: read)
        #expect(reads.withLock { $0 } == 2)
        // Another account is its own entry; a missing account is remembered as missing.
        #expect(try cache.status(uid: "gone") { () throws(AuthError) in nil } == nil)
        #expect(try cache.status(uid: "gone", read: read) == nil)
    }

    @Test func aReadThatAWriteOverlapsIsNotKept() throws {
        let cache = TokenStatusCache(lifetime: .seconds(3600))
        let stale = try cache.status(uid: "u") { () throws(AuthError) in
            // The account is disabled while this read of the old row is under way.
            cache.invalidate()
            return (disabled: false, validSince: 0)
        }
        #expect(stale?.disabled == false)
        let fresh = try cache.status(uid: "u") { () throws(AuthError) in (disabled: true, validSince: 0) }
        #expect(fresh?.disabled == true)
    }

    @Test func anExpiredEntryIsReadAgain() throws {
        let cache = TokenStatusCache(lifetime: .zero)
        let reads = Mutex(0)
        for _ in 0..<3 {
            _ = try cache.status(uid: "u") { () throws(AuthError) in
                reads.withLock { $0 += 1 }
                return nil
            }
        }
        #expect(reads.withLock { $0 } == 3)
    }

    @Test func disablingAnAccountRefusesItsTokenOnTheVeryNextCheck() throws {
        let fixture = try Fixture()
        let user = try fixture.signUp("cached@example.com")
        let token = try #require(user.tokens?.idToken)
        // Twice, so the status is cached.
        _ = try fixture.service.authContext(idToken: token)
        _ = try fixture.service.authContext(idToken: token)
        var disable = UpdateRequest()
        disable.localID = user.user.uid
        disable.disableUser = true
        _ = try fixture.service.update(disable, context: Fixture.admin)
        #expect(authErrorCode { _ = try fixture.service.authContext(idToken: token) } == "USER_DISABLED")
    }
}
