import Foundation
import HearthCore
import HearthTesting
import Testing

/// The admin API (what the Admin SDKs call) against one development-mode server.
@Suite("Accounts: admin API", .sharedHearth)
struct AccountsAdminTests {
    @Test("create, lookup by uid, email and phone, update claims, delete")
    func crud() async throws {
        let client = try SharedHearth.server.client
        let uid = "admin-\(UUID().uuidString.prefix(8))"
        let email = Accounts.uniqueEmail("admin")
        let phone = "+1555\(Int.random(in: 1_000_000...9_999_999))"
        let created = try expectOK(
            await client.admin(
                nil,
                [
                    "localId": .string(uid), "email": .string(email), "password": "secret-password",
                    "phoneNumber": .string(phone),
                    "displayName": "Admin Made", "emailVerified": true,
                ]))
        #expect(created["localId"] == .string(uid) && created["idToken"] == nil)
        expectAuthError(try await client.admin(nil, ["localId": .string(uid)]), "DUPLICATE_LOCAL_ID")
        expectAuthError(try await client.admin(nil, ["email": .string(email)]), "EMAIL_EXISTS")
        expectAuthError(try await client.admin(nil, ["phoneNumber": .string(phone)]), "PHONE_NUMBER_EXISTS")

        for query: JSONValue in [
            ["localId": [.string(uid)]], ["email": [.string(email.uppercased())]], ["phoneNumber": [.string(phone)]],
        ] {
            let found = try expectOK(await client.admin("lookup", query))
            #expect(found["users"]?.arrayValue?.map { $0["localId"] } == [.string(uid)], "\(query)")
        }
        let none = try expectOK(await client.admin("lookup", ["localId": ["no-such-user"]]))
        #expect(none["users"] == nil, "no users member when nothing matched")

        _ = try expectOK(
            await client.admin("update", ["localId": .string(uid), "customAttributes": #"{"role":"admin"}"#]))
        let signIn = try expectOK(
            await client.accounts("signInWithPassword", ["email": .string(email), "password": "secret-password"]))
        let claimsToken = try #require(signIn["idToken"]?.stringValue)
        let claims = try #require(Accounts.claims(claimsToken))
        #expect(claims["role"] == "admin" && claims["email_verified"] == true && claims["name"] == "Admin Made")
        expectAuthError(
            try await client.admin("update", ["localId": .string(uid), "customAttributes": #"{"iss":"x"}"#]),
            "FORBIDDEN_CLAIM")
        expectAuthError(
            try await client.accounts("update", ["idToken": signIn["idToken"] ?? "", "customAttributes": "{}"]),
            "INSUFFICIENT_PERMISSION")

        _ = try expectOK(await client.admin("delete", ["localId": .string(uid)]))
        expectAuthError(try await client.admin("delete", ["localId": .string(uid)]), "USER_NOT_FOUND")
        expectAuthError(
            try await client.admin("update", ["localId": .string(uid), "displayName": "x"]), "USER_NOT_FOUND")
    }

    @Test("batchGet pages in uid order; query counts; batchDelete refuses enabled accounts without force")
    func listing() async throws {
        let client = try SharedHearth.server.client
        let prefix = "page-\(UUID().uuidString.prefix(6))"
        for index in 0..<3 { _ = try expectOK(await client.admin(nil, ["localId": .string("\(prefix)-\(index)")])) }
        var seen: [String] = []
        var token: String?
        repeat {
            var query = [("maxResults", "2")]
            if let token { query.append(("nextPageToken", token)) }
            let page = try expectOK(
                await client.request(
                    "GET", "\(Accounts.toolkit)/projects/demo/accounts:batchGet", query: query,
                    headers: ["Authorization": "Bearer owner"]))
            #expect((page["users"]?.arrayValue?.count ?? 0) <= 2)
            seen += page["users"]?.arrayValue?.compactMap { $0["localId"]?.stringValue } ?? []
            token = page["nextPageToken"]?.stringValue
        } while token != nil
        #expect(seen == seen.sorted())
        #expect(Set((0..<3).map { "\(prefix)-\($0)" }).isSubset(of: seen))

        let count = try expectOK(await client.admin("query", ["returnUserInfo": false]))
        #expect(Int(count["recordsCount"]?.stringValue ?? "") ?? 0 >= 3)

        let refused = try expectOK(
            await client.admin("batchDelete", ["localIds": [.string("\(prefix)-0"), .string("\(prefix)-1")]]))
        #expect(refused["errors"]?.arrayValue?.count == 2)
        #expect(refused["errors"]?[0]?["message"]?.stringValue?.hasPrefix("NOT_DISABLED") == true)
        let forced = try expectOK(
            await client.admin(
                "batchDelete", ["localIds": [.string("\(prefix)-0"), .string("\(prefix)-1")], "force": true]))
        #expect(forced["errors"] == nil)
        let left = try expectOK(
            await client.admin("lookup", ["localId": [.string("\(prefix)-0"), .string("\(prefix)-2")]]))
        #expect(left["users"]?.arrayValue?.map { $0["localId"] } == [.string("\(prefix)-2")])
    }

    @Test("sendOobCode with returnOobLink returns the link (admins only)")
    func returnOobLink() async throws {
        let client = try SharedHearth.server.client
        let email = Accounts.uniqueEmail("link")
        _ = try await client.signUp(email)
        let result = try expectOK(
            await client.admin(
                "sendOobCode", ["requestType": "VERIFY_EMAIL", "email": .string(email), "returnOobLink": true]))
        let code = try #require(result["oobCode"]?.stringValue)
        #expect(result["oobLink"]?.stringValue?.contains("oobCode=\(code)") == true)
        expectAuthError(
            try await client.accounts(
                "sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(email), "returnOobLink": true]),
            "INSUFFICIENT_PERMISSION")
        _ = try expectOK(await client.accounts("update", ["oobCode": .string(code)]))
    }

    @Test("an admin mails a verification by address, without the user's ID token; a caller cannot")
    func adminMailsVerification() async throws {
        let client = try SharedHearth.server.client
        let email = Accounts.uniqueEmail("mailed")
        _ = try await client.signUp(email)
        func outbox() async throws -> [JSONValue] {
            let listing = try expectOK(await client.get("/emulator/v1/projects/demo/oobCodes"))
            return (listing["oobCodes"]?.arrayValue ?? []).filter { $0["email"] == .string(email) }
        }
        let before = try await outbox().count
        let result = try expectOK(
            await client.admin("sendOobCode", ["requestType": "VERIFY_EMAIL", "email": .string(email)]))
        #expect(result["email"] == .string(email))
        #expect(result["oobCode"] == nil, "a mailed code is not handed to the caller")
        let after = try await outbox()
        #expect(after.count == before + 1)
        #expect(after.last?["requestType"] == "VERIFY_EMAIL")
        expectAuthError(
            try await client.accounts("sendOobCode", ["requestType": "VERIFY_EMAIL", "email": .string(email)]),
            "MISSING_ID_TOKEN")
    }

    @Test("admin endpoints want the admin credential; the host-less /v1/projects form works too")
    func credentials() async throws {
        let client = try SharedHearth.server.client
        let anonymous = try await client.request(
            "GET", "\(Accounts.toolkit)/projects/demo/accounts:batchGet", query: [("key", "k")])
        let anonymousBody = try anonymous.json()
        #expect(anonymous.status == 401 && anonymousBody["error"]?["status"] == "UNAUTHENTICATED")
        let wrong = try await client.admin("query", [:], credential: "not-the-key")
        #expect(wrong.status == 401)
        let hostless = try await client.request(
            "POST", "/v1/projects/demo/accounts:query", json: #"{"returnUserInfo":false}"#,
            headers: ["Authorization": "Bearer owner"])
        #expect(hostless.status == 200, "\(hostless)")
        let unsupported = try await client.admin("createSessionCookie", [:])
        #expect(unsupported.status == 501)
    }
}
