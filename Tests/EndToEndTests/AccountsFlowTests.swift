import Foundation
import HearthCore
import HearthTesting
import Testing

/// The client flows over HTTP against one development-mode server.
@Suite("Accounts: client flows", .sharedHearth)
struct AccountsFlowTests {
    @Test("sign-up → sign-in → refresh (JSON and form) → lookup → profile update → delete")
    func lifecycle() async throws {
        let client = try SharedHearth.server.client
        let email = Accounts.uniqueEmail("life")
        let signUp = try await client.signUp(email)
        #expect(signUp["kind"] == "identitytoolkit#SignupNewUserResponse")
        #expect(signUp["email"] == .string(email))
        #expect(signUp["expiresIn"] == "3600")
        let uid = try #require(signUp["localId"]?.stringValue)
        #expect(uid.count == 28)
        let claimsToken = try #require(signUp["idToken"]?.stringValue)
        let claims = try #require(Accounts.claims(claimsToken))
        #expect(claims["sub"] == .string(uid) && claims["user_id"] == .string(uid))
        #expect(claims["iss"] == "https://securetoken.google.com/demo" && claims["aud"] == "demo")
        #expect(claims["email_verified"] == false)
        #expect(claims["firebase"]?["sign_in_provider"] == "password")

        let signIn = try expectOK(
            await client.accounts(
                "signInWithPassword",
                ["email": .string(email.uppercased()), "password": "secret-password", "returnSecureToken": true]))
        #expect(signIn["kind"] == "identitytoolkit#VerifyPasswordResponse" && signIn["registered"] == true)
        #expect(signIn["localId"] == .string(uid))
        let refreshToken = try #require(signIn["refreshToken"]?.stringValue)

        let viaJSON = try expectOK(
            await client.request(
                "POST", "/securetoken.googleapis.com/v1/token", query: [("key", "k")],
                json: #"{"grantType":"refresh_token","refreshToken":"\#(refreshToken)"}"#))
        let viaForm = try expectOK(
            await client.request(
                "POST", "/securetoken.googleapis.com/v1/token", query: [("key", "k")],
                body: Array("grant_type=refresh_token&refresh_token=\(refreshToken)".utf8),
                headers: ["Content-Type": "application/x-www-form-urlencoded"]))
        for refreshed in [viaJSON, viaForm] {
            #expect(refreshed["token_type"] == "Bearer" && refreshed["expires_in"] == "3600")
            #expect(refreshed["user_id"] == JSONValue.string(uid))
            #expect(refreshed["refresh_token"] == JSONValue.string(refreshToken))
            #expect(refreshed["access_token"] == refreshed["id_token"])
            #expect(refreshed["project_id"] == "demo")
        }
        let idToken = try #require(viaForm["id_token"]?.stringValue)

        let lookup = try expectOK(await client.accounts("lookup", ["idToken": .string(idToken)]))
        let user = try #require(lookup["users"]?[0])
        #expect(user["localId"] == .string(uid) && user["email"] == .string(email))
        #expect(user["emailVerified"] == false && user["disabled"] == false)
        #expect(user["passwordHash"] == "UkVEQUNURUQ=", "never the real hash")
        #expect(user["providerUserInfo"]?[0]?["providerId"] == "password")
        #expect(user["lastRefreshAt"] != nil && user["createdAt"] != nil && user["validSince"] != nil)

        let renamed = try expectOK(
            await client.accounts(
                "update", ["idToken": .string(idToken), "displayName": "Renée", "returnSecureToken": true]))
        #expect(renamed["displayName"] == "Renée")
        #expect(renamed["idToken"] == nil, "a profile change keeps the session")

        _ = try expectOK(await client.accounts("delete", ["idToken": .string(idToken)]))
        expectAuthError(try await client.accounts("lookup", ["idToken": .string(idToken)]), "USER_NOT_FOUND")
        expectAuthError(
            try await client.accounts("signInWithPassword", ["email": .string(email), "password": "secret-password"]),
            "EMAIL_NOT_FOUND")
    }

    @Test("a password or email change revokes older tokens and answers with new ones")
    func changeRevokes() async throws {
        let client = try SharedHearth.server.client
        let signUp = try await client.signUp(Accounts.uniqueEmail("revoke"))
        let oldID = try #require(signUp["idToken"]?.stringValue)
        let oldRefresh = try #require(signUp["refreshToken"]?.stringValue)
        try await waitForNextSecond()
        let changed = try expectOK(
            await client.accounts(
                "update", ["idToken": .string(oldID), "password": "new-password-1", "returnSecureToken": true]))
        let newID = try #require(changed["idToken"]?.stringValue)
        #expect(changed["refreshToken"]?.stringValue != oldRefresh)
        expectAuthError(try await client.accounts("lookup", ["idToken": .string(oldID)]), "TOKEN_EXPIRED")
        expectAuthError(
            try await client.request(
                "POST", "/securetoken.googleapis.com/v1/token", query: [("key", "k")],
                json: #"{"grantType":"refresh_token","refreshToken":"\#(oldRefresh)"}"#),
            "INVALID_REFRESH_TOKEN")
        _ = try expectOK(await client.accounts("lookup", ["idToken": .string(newID)]))

        try await waitForNextSecond()
        let newEmail = Accounts.uniqueEmail("moved")
        let moved = try expectOK(
            await client.accounts("update", ["idToken": .string(newID), "email": .string(newEmail)]))
        #expect(moved["email"] == .string(newEmail) && moved["emailVerified"] == false)
        expectAuthError(try await client.accounts("lookup", ["idToken": .string(newID)]), "TOKEN_EXPIRED")
        _ = try expectOK(await client.accounts("lookup", ["idToken": moved["idToken"] ?? ""]))
    }

    @Test("sign-up and sign-in errors in Identity Toolkit's envelope")
    func errors() async throws {
        let client = try SharedHearth.server.client
        let email = Accounts.uniqueEmail("err")
        _ = try await client.signUp(email)
        let exists = try await client.accounts("signUp", ["email": .string(email), "password": "secret-password"])
        #expect(
            try exists.json()
                == FS.json(
                    #"{"error":{"code":400,"message":"EMAIL_EXISTS","errors":[{"message":"EMAIL_EXISTS","domain":"global","reason":"invalid"}]}}"#
                ))
        expectAuthError(
            try await client.accounts("signUp", ["email": "nope", "password": "secret-password"]), "INVALID_EMAIL")
        expectAuthError(
            try await client.accounts("signUp", ["email": .string(Accounts.uniqueEmail("x"))]), "MISSING_PASSWORD")
        let weak = expectAuthError(
            try await client.accounts("signUp", ["email": .string(Accounts.uniqueEmail("x")), "password": "12345"]),
            "WEAK_PASSWORD")
        #expect(weak == "WEAK_PASSWORD : Password should be at least 6 characters")
        expectAuthError(
            try await client.accounts("signInWithPassword", ["email": .string(email), "password": "wrong-password"]),
            "INVALID_PASSWORD")
        expectAuthError(
            try await client.accounts(
                "signInWithPassword", ["email": .string(Accounts.uniqueEmail("ghost")), "password": "x"]),
            "EMAIL_NOT_FOUND")
        expectAuthError(try await client.accounts("signInWithPassword", ["password": "x"]), "MISSING_EMAIL")
        expectAuthError(try await client.accounts("lookup", ["idToken": "garbage"]), "INVALID_ID_TOKEN")
        expectAuthError(try await client.accounts("lookup", [:]), "MISSING_ID_TOKEN")
        expectAuthError(try await client.accounts("update", ["oobCode": "not-a-code"]), "INVALID_OOB_CODE")
        expectAuthError(
            try await client.accounts("resetPassword", ["oobCode": "not-a-code", "newPassword": "whatever-1"]),
            "INVALID_OOB_CODE")
        expectAuthError(
            try await client.request(
                "POST", "/securetoken.googleapis.com/v1/token", query: [("key", "k")],
                json: #"{"grantType":"refresh_token","refreshToken":"nope"}"#),
            "INVALID_REFRESH_TOKEN")

        let bad = try await client.request(
            "POST", "\(Accounts.toolkit)/accounts:signUp", query: [("key", "k")], json: "{not json")
        let badBody = try bad.json()
        #expect(bad.status == 400 && badBody["error"]?["status"] == "INVALID_ARGUMENT")
        let noKey = try await client.accounts("signUp", [:], key: nil)
        let noKeyBody = try noKey.json()
        #expect(noKey.status == 403 && noKeyBody["error"]?["status"] == "PERMISSION_DENIED")
        let get = try await client.request("GET", "\(Accounts.toolkit)/accounts:signUp", query: [("key", "k")])
        #expect(get.status == 404)
    }

    @Test("disabled accounts cannot sign in, refresh or use their ID token")
    func disabled() async throws {
        let client = try SharedHearth.server.client
        let email = Accounts.uniqueEmail("off")
        let signUp = try await client.signUp(email)
        let uid = try #require(signUp["localId"])
        _ = try expectOK(await client.admin("update", ["localId": uid, "disableUser": true]))
        expectAuthError(
            try await client.accounts("signInWithPassword", ["email": .string(email), "password": "secret-password"]),
            "USER_DISABLED")
        expectAuthError(try await client.accounts("lookup", ["idToken": signUp["idToken"] ?? ""]), "USER_DISABLED")
        expectAuthError(
            try await client.request(
                "POST", "/securetoken.googleapis.com/v1/token", query: [("key", "k")],
                json: #"{"grantType":"refresh_token","refreshToken":"\#(signUp["refreshToken"]?.stringValue ?? "")"}"#),
            "USER_DISABLED")
        _ = try expectOK(await client.admin("update", ["localId": uid, "disableUser": false]))
        _ = try expectOK(
            await client.accounts("signInWithPassword", ["email": .string(email), "password": "secret-password"]))
    }

    @Test("anonymous sign-up, then linking an email and password to the same account")
    func anonymousLink() async throws {
        let client = try SharedHearth.server.client
        let anonymous = try expectOK(await client.accounts("signUp", ["returnSecureToken": true]))
        let uid = try #require(anonymous["localId"])
        let token = try #require(anonymous["idToken"]?.stringValue)
        #expect(Accounts.claims(token)?["firebase"]?["sign_in_provider"] == "anonymous")
        #expect(Accounts.claims(token)?["provider_id"] == "anonymous")
        let email = Accounts.uniqueEmail("linked")
        let linked = try expectOK(
            await client.accounts(
                "signUp", ["idToken": .string(token), "email": .string(email), "password": "secret-password"]))
        #expect(linked["localId"] == uid)
        let signIn = try expectOK(
            await client.accounts("signInWithPassword", ["email": .string(email), "password": "secret-password"]))
        #expect(signIn["localId"] == uid)
    }

    @Test("email verification: code in the outbox listing, link applied once")
    func verifyEmail() async throws {
        let server = try SharedHearth.server
        let client = server.client
        let email = Accounts.uniqueEmail("verify")
        let signUp = try await client.signUp(email)
        let sent = try expectOK(
            await client.accounts("sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": signUp["idToken"] ?? ""]))
        #expect(sent["email"] == .string(email) && sent["oobCode"] == nil)
        let listing = try expectOK(await client.get("/emulator/v1/projects/demo/oobCodes"))
        let entry = try #require(listing["oobCodes"]?.arrayValue?.last { $0["email"] == .string(email) })
        #expect(entry["requestType"] == "VERIFY_EMAIL")
        let link = try #require(entry["oobLink"]?.stringValue)
        #expect(
            link.hasPrefix(
                "\(server.baseURL)/emulator/action?mode=verifyEmail&oobCode=\(entry["oobCode"]?.stringValue ?? "?")"))
        let path = String(link.dropFirst(server.baseURL.count))
        let applied = try await client.request("GET", path)
        #expect(applied.status == 200, "\(applied)")
        #expect((try applied.json())["authEmulator"]?["success"] == "The email has been successfully verified.")
        let again = try await client.request("GET", path)
        #expect(again.status == 400)
        let lookup = try expectOK(await client.accounts("lookup", ["idToken": signUp["idToken"] ?? ""]))
        #expect(lookup["users"]?[0]?["emailVerified"] == true)
        #expect(server.stderr.contains("dev outbox: follow this link"), "development mode logs the link")
        #expect(!server.stderr.contains("\"\(email)\""), "but never the address in a log field")
    }

    @Test("password reset through sendOobCode and resetPassword")
    func passwordReset() async throws {
        let client = try SharedHearth.server.client
        let email = Accounts.uniqueEmail("reset")
        let signUp = try await client.signUp(email, password: "old-password")
        _ = try expectOK(
            await client.accounts("sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(email)]))
        let listing = try expectOK(await client.get("/emulator/v1/projects/demo/oobCodes"))
        let code = try #require(
            listing["oobCodes"]?.arrayValue?.last {
                $0["email"] == .string(email) && $0["requestType"] == "PASSWORD_RESET"
            }?["oobCode"])
        let inspected = try expectOK(await client.accounts("resetPassword", ["oobCode": code]))
        #expect(inspected["requestType"] == "PASSWORD_RESET" && inspected["email"] == .string(email))
        expectAuthError(
            try await client.accounts("resetPassword", ["oobCode": code, "newPassword": "123"]), "WEAK_PASSWORD")
        _ = try expectOK(await client.accounts("resetPassword", ["oobCode": code, "newPassword": "new-password"]))
        expectAuthError(
            try await client.accounts("resetPassword", ["oobCode": code, "newPassword": "new-password"]),
            "INVALID_OOB_CODE")
        expectAuthError(
            try await client.accounts("signInWithPassword", ["email": .string(email), "password": "old-password"]),
            "INVALID_PASSWORD")
        _ = try expectOK(
            await client.accounts("signInWithPassword", ["email": .string(email), "password": "new-password"]))
        expectAuthError(
            try await client.request(
                "POST", "/securetoken.googleapis.com/v1/token", query: [("key", "k")],
                json: #"{"grantType":"refresh_token","refreshToken":"\#(signUp["refreshToken"]?.stringValue ?? "")"}"#),
            "INVALID_REFRESH_TOKEN")
        expectAuthError(
            try await client.accounts(
                "sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(Accounts.uniqueEmail("ghost"))]),
            "EMAIL_NOT_FOUND")
    }

    @Test("custom tokens: unsigned ones in development mode, with their claims")
    func customToken() async throws {
        let client = try SharedHearth.server.client
        let uid = "custom-\(UUID().uuidString.prefix(8))"
        let token = Accounts.unsignedCustomToken([
            "aud": .string(Accounts.customTokenAudience), "uid": .string(uid), "claims": ["team": "blue"],
        ])
        let first = try expectOK(
            await client.accounts("signInWithCustomToken", ["token": .string(token), "returnSecureToken": true]))
        #expect(first["isNewUser"] == true)
        let claimsToken = try #require(first["idToken"]?.stringValue)
        let claims = try #require(Accounts.claims(claimsToken))
        #expect(claims["sub"] == .string(uid) && claims["team"] == "blue")
        #expect(claims["firebase"]?["sign_in_provider"] == "custom")
        let second = try expectOK(await client.accounts("signInWithCustomToken", ["token": .string(token)]))
        #expect(second["isNewUser"] == false)
        expectAuthError(
            try await client.accounts("signInWithCustomToken", ["token": "garbage"]), "INVALID_CUSTOM_TOKEN")
        expectAuthError(try await client.accounts("signInWithCustomToken", [:]), "MISSING_CUSTOM_TOKEN")
    }

    @Test("createAuthUri reports sign-in methods; the client SDKs' project configuration answers")
    func signInMethods() async throws {
        let client = try SharedHearth.server.client
        let email = Accounts.uniqueEmail("methods")
        _ = try await client.signUp(email)
        let known = try expectOK(
            await client.accounts("createAuthUri", ["identifier": .string(email), "continueUri": "http://localhost"]))
        #expect(known["registered"] == true && known["signinMethods"] == ["password"])
        let unknown = try expectOK(
            await client.accounts(
                "createAuthUri",
                ["identifier": .string(Accounts.uniqueEmail("none")), "continueUri": "http://localhost"]))
        #expect(unknown["registered"] == false && unknown["signinMethods"] == [])
        expectAuthError(
            try await client.accounts("createAuthUri", ["identifier": "x", "continueUri": "http://localhost"]),
            "INVALID_IDENTIFIER")
        let project = try expectOK(await client.get("\(Accounts.toolkit)/projects", query: [("key", "k")]))
        #expect(project["projectId"] == "demo")
    }

    @Test("the JWKS is served at both paths")
    func jwks() async throws {
        let client = try SharedHearth.server.client
        let signUp = try await client.signUp(Accounts.uniqueEmail("jwks"))
        let token = try #require(signUp["idToken"]?.stringValue)
        let header = try #require(
            Base64URL.decode(token.split(separator: ".")[0]).flatMap { try? JSONParser.parse($0) })
        #expect(header["alg"] == "RS256")
        for path in ["/.well-known/jwks.json", "/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"] {
            let keys = try expectOK(await client.get(path))
            let key = try #require(keys["keys"]?.arrayValue?.first { $0["kid"] == header["kid"] })
            #expect(key["kty"] == "RSA" && key["alg"] == "RS256" && key["use"] == "sig" && key["e"] == "AQAB")
            #expect(key["n"]?.stringValue?.count == 342)
        }
    }
}
