import HearthCore
import Testing

@testable import HearthAuth

@Suite struct AdminTests {
    @Test func createLookupUpdateDelete() throws {
        let fixture = try Fixture()
        let service = fixture.service
        var create = SignUpRequest()
        create.localID = "uid-1"
        create.email = "Admin.Made@example.com"
        create.password = "secret-pw"
        create.phoneNumber = "+15555550100"
        create.emailVerified = true
        create.displayName = "Made"
        let created = try service.signUp(create, context: Fixture.admin)
        #expect(created.tokens == nil, "an admin create signs nobody in")
        #expect(created.user.uid == "uid-1" && created.user.emailVerified)
        #expect(authErrorCode { _ = try service.signUp(create, context: Fixture.admin) } == "DUPLICATE_LOCAL_ID")
        create.localID = "uid-2"
        #expect(authErrorCode { _ = try service.signUp(create, context: Fixture.admin) } == "EMAIL_EXISTS")
        create.email = "other@example.com"
        #expect(authErrorCode { _ = try service.signUp(create, context: Fixture.admin) } == "PHONE_NUMBER_EXISTS")

        #expect(try service.lookup(uids: ["uid-1"], emails: [], phoneNumbers: []).map(\.uid) == ["uid-1"])
        #expect(
            try service.lookup(uids: [], emails: ["admin.made@EXAMPLE.com"], phoneNumbers: []).map(\.uid) == ["uid-1"])
        #expect(try service.lookup(uids: [], emails: [], phoneNumbers: ["+15555550100"]).map(\.uid) == ["uid-1"])
        #expect(
            try service.lookup(uids: ["uid-1", "missing"], emails: ["admin.made@example.com"], phoneNumbers: []).count
                == 1)

        var update = UpdateRequest()
        update.localID = "uid-1"
        update.customAttributes = #"{"admin":true,"tier":2}"#
        update.displayName = "Renamed"
        _ = try service.update(update, context: Fixture.admin)
        let signedIn = try service.signInWithPassword(
            email: "admin.made@example.com", password: "secret-pw", context: Fixture.client)
        let claims = try service.authContext(idToken: try #require(signedIn.tokens?.idToken)).claims
        #expect(claims["admin"] == true && claims["tier"] == 2 && claims["name"] == "Renamed")

        update.customAttributes = #"{"sub":"x"}"#
        #expect(authErrorCode { _ = try service.update(update, context: Fixture.admin) } == "FORBIDDEN_CLAIM")
        update.customAttributes = "[1]"
        #expect(authErrorCode { _ = try service.update(update, context: Fixture.admin) } == "INVALID_CLAIMS")
        update.customAttributes = "{\"a\":\"" + String(repeating: "x", count: 1000) + "\"}"
        #expect(authErrorCode { _ = try service.update(update, context: Fixture.admin) } == "CLAIMS_TOO_LARGE")
        var clientClaims = UpdateRequest()
        clientClaims.idToken = signedIn.tokens?.idToken
        clientClaims.customAttributes = "{}"
        #expect(
            authErrorCode { _ = try service.update(clientClaims, context: Fixture.client) } == "INSUFFICIENT_PERMISSION"
        )
        var missing = UpdateRequest()
        missing.localID = "missing"
        missing.displayName = "x"
        #expect(authErrorCode { _ = try service.update(missing, context: Fixture.admin) } == "USER_NOT_FOUND")
        #expect(authErrorCode { _ = try service.update(UpdateRequest(), context: Fixture.admin) } == "MISSING_LOCAL_ID")
        #expect(
            authErrorCode { _ = try service.update(UpdateRequest(), context: Fixture.client) } == "INVALID_REQ_TYPE")

        try service.delete(idToken: nil, localID: "uid-1", context: Fixture.admin)
        #expect(
            authErrorCode { try service.delete(idToken: nil, localID: "uid-1", context: Fixture.admin) }
                == "USER_NOT_FOUND")
        #expect(try service.lookup(uids: ["uid-1"], emails: [], phoneNumbers: []).isEmpty)
    }

    @Test func listingPagesAndBatchDelete() throws {
        let fixture = try Fixture()
        for index in 0..<5 {
            var create = SignUpRequest()
            create.localID = "user-\(index)"
            create.disabled = index < 2
            _ = try fixture.service.signUp(create, context: Fixture.admin)
        }
        let first = try fixture.service.listUsers(maxResults: 2, pageToken: nil)
        #expect(first.users.map(\.uid) == ["user-0", "user-1"] && first.nextPageToken == "user-1")
        let second = try fixture.service.listUsers(maxResults: 2, pageToken: first.nextPageToken)
        #expect(second.users.map(\.uid) == ["user-2", "user-3"])
        let last = try fixture.service.listUsers(maxResults: 2, pageToken: second.nextPageToken)
        #expect(last.users.map(\.uid) == ["user-4"] && last.nextPageToken == nil)
        #expect(try fixture.service.queryUsers(limit: 500, offset: 0, countOnly: true).count == 5)
        #expect(
            try fixture.service.queryUsers(limit: 2, offset: 1, countOnly: false).users.map(\.uid) == [
                "user-1", "user-2",
            ])

        let refused = try fixture.service.batchDelete(uids: ["user-0", "user-2", "ghost"], force: false)
        #expect(refused.map(\.uid) == ["user-2"])
        #expect(refused.first?.message.hasPrefix("NOT_DISABLED") == true)
        #expect(try fixture.service.batchDelete(uids: ["user-2"], force: true).isEmpty)
        #expect(try fixture.service.allUsers().map(\.uid) == ["user-1", "user-3", "user-4"])
        #expect(
            authErrorCode { _ = try fixture.service.batchDelete(uids: [], force: true) }
                == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
        try fixture.service.deleteAllAccounts()
        #expect(try fixture.service.allUsers().isEmpty)
    }
}
