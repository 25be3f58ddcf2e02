import Foundation
import HearthCore
import HearthTesting
import Testing

/// What federated identities do to accounts: one account per email (`needConfirmation`), linking to a signed-in
/// account, `FEDERATED_USER_ID_ALREADY_LINKED`, unlinking, development mode's stated claims, and rules that look at
/// `firebase.sign_in_provider`.
@Suite("Federated accounts")
struct FederatedAccountsTests {
    @Test("a provider address that has an account needs confirmation; linking from that account merges them")
    func needConfirmationThenLink() async throws {
        try await Providers.withServer { server, idp in
            let client = server.client
            let password = try await client.signUp("pat@example.com")
            let uid = try #require(password["localId"]?.stringValue)
            let google = try idp.idToken(["sub": "g-pat", "email": "pat@example.com", "email_verified": true])
            let pending = try expectOK(await client.signInWithIdp("google.com", idToken: google))
            #expect(pending["needConfirmation"] == true)
            #expect(pending["email"] == "pat@example.com")
            #expect(pending["verifiedProvider"] == ["password"])
            #expect(pending["oauthIdToken"]?.stringValue == google)
            #expect(pending["idToken"] == nil)
            #expect(pending["localId"] == nil)
            #expect(try await client.accountCount() == 1)
            #expect(try await client.account(uid)["providerUserInfo"]?.arrayValue?.count == 1)

            // The owner signs in with the password and links the pending credential.
            let signedIn = try expectOK(
                await client.accounts(
                    "signInWithPassword",
                    ["email": "pat@example.com", "password": "secret-password", "returnSecureToken": true]))
            let linked = try expectOK(
                await client.signInWithIdp(
                    "google.com", idToken: google, link: try #require(signedIn["idToken"]?.stringValue)))
            #expect(linked["localId"]?.stringValue == uid)
            #expect(linked["isNewUser"] == false)
            let claims = try #require(Accounts.claims(linked["idToken"]?.stringValue ?? ""))
            #expect(claims["firebase"]?["sign_in_provider"] == "google.com")
            #expect(claims["firebase"]?["identities"]?["google.com"] == ["g-pat"])
            let account = try await client.account(uid)
            let providers = account["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue }
            #expect(providers?.sorted() == ["google.com", "password"])
            // Google vouched for the address the account already had.
            #expect(account["emailVerified"] == true)
            // From now on Google signs the same account in.
            let again = try expectOK(await client.signInWithIdp("google.com", idToken: google))
            #expect(again["localId"]?.stringValue == uid)
            #expect(again["needConfirmation"] == nil)
            let methods = try expectOK(
                await client.accounts(
                    "createAuthUri", ["identifier": "pat@example.com", "continueUri": "http://localhost"]))
            #expect(methods["signinMethods"] == ["password", "google.com"])
            #expect(try await client.accountCount() == 1)
        }
    }

    @Test("a provider identity linked to one account cannot be linked to another; one link per provider")
    func alreadyLinked() async throws {
        try await Providers.withServer { server, idp in
            let client = server.client
            let github = idp.githubToken(user: ["id": 77, "login": "sam"], emails: [])
            let owner = try expectOK(await client.signInWithIdp("github.com", accessToken: github))
            let other = try await client.signUp("other@example.com")
            let otherToken = try #require(other["idToken"]?.stringValue)
            expectAuthError(
                try await client.signInWithIdp("github.com", accessToken: github, link: otherToken),
                "FEDERATED_USER_ID_ALREADY_LINKED")
            let otherUID = try #require(other["localId"]?.stringValue)
            #expect(try await client.account(otherUID)["providerUserInfo"]?.arrayValue?.count == 1)
            // A second GitHub identity on the account that already has one.
            let second = idp.githubToken(user: ["id": 78, "login": "sam2"], emails: [])
            expectAuthError(
                try await client.signInWithIdp(
                    "github.com", accessToken: second, link: try #require(owner["idToken"]?.stringValue)),
                "PROVIDER_ALREADY_LINKED")
            // Linking a provider whose address belongs to another account.
            let google = try idp.idToken(["sub": "g-x", "email": "other@example.com", "email_verified": true])
            expectAuthError(
                try await client.signInWithIdp(
                    "google.com", idToken: google, link: try #require(owner["idToken"]?.stringValue)),
                "EMAIL_EXISTS")
            #expect(try await client.accountCount() == 2)
        }
    }

    @Test("accounts:update deleteProvider unlinks: the identity no longer signs that account in")
    func unlink() async throws {
        try await Providers.withServer { server, idp in
            let client = server.client
            let token = try idp.idToken(["sub": "o-unlink"])
            let first = try expectOK(await client.signInWithIdp("oidc.fake", idToken: token))
            let uid = try #require(first["localId"]?.stringValue)
            let updated = try expectOK(
                await client.accounts(
                    "update",
                    ["idToken": .string(try #require(first["idToken"]?.stringValue)), "deleteProvider": ["oidc.fake"]]
                ))
            #expect(updated["providerUserInfo"] == [])
            #expect(try await client.account(uid)["providerUserInfo"] == [])
            let again = try expectOK(
                await client.signInWithIdp("oidc.fake", idToken: try idp.idToken(["sub": "o-unlink"])))
            #expect(again["isNewUser"] == true)
            #expect(again["localId"]?.stringValue != uid)
        }
    }

    @Test("document and tree rules see the provider in request.auth.token.firebase.sign_in_provider")
    func rulesSeeTheProvider() async throws {
        let files = try TemporaryDirectory("hearth-provider-rules")
        defer { files.remove() }
        let rules = files.url.appendingPathComponent("firestore.rules").path
        try """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /notes/{id} {
              allow read, write: if request.auth.token.firebase.sign_in_provider == 'google.com';
            }
          }
        }
        """.write(toFile: rules, atomically: true, encoding: .utf8)
        let treeRules = files.url.appendingPathComponent("database.rules.json").path
        let treeText =
            #"{"rules":{"notes":{".read":"auth.token.firebase.sign_in_provider === 'google.com'","#
            + #"".write":"auth.token.firebase.sign_in_provider === 'google.com'"}}}"#
        try treeText.write(toFile: treeRules, atomically: true, encoding: .utf8)
        try await Providers.withServer(rules: rules, databaseRules: treeRules) { server, idp in
            let client = server.client
            let google = try expectOK(
                await client.signInWithIdp("google.com", idToken: try idp.idToken(["sub": "g-r"])))
            let googleAuth = ["Authorization": "Bearer \(try #require(google["idToken"]?.stringValue))"]
            let password = try await client.signUp("rules@example.com")
            let passwordAuth = ["Authorization": "Bearer \(try #require(password["idToken"]?.stringValue))"]
            let document = FS.document(#"{"text":{"stringValue":"hi"}}"#)
            #expect(
                try await client.request("PATCH", FS.path("notes/a"), json: document, headers: googleAuth).status == 200
            )
            #expect(
                try await client.request("PATCH", FS.path("notes/b"), json: document, headers: passwordAuth).status
                    == 403)
            let tokenQuery = [("auth", try #require(google["idToken"]?.stringValue))]
            #expect(try await client.tree("PUT", "notes/a", #""hi""#, query: tokenQuery).status == 200)
            let passwordQuery = [("auth", try #require(password["idToken"]?.stringValue))]
            #expect(try await client.tree("PUT", "notes/b", #""hi""#, query: passwordQuery).status == 401)
        }
    }

    @Test("development mode takes stated claims — JSON or an unsigned JWT — for any provider, with no provider set up")
    func developmentMode() async throws {
        try await withHearth { server in
            let client = server.client
            let json = try expectOK(
                await client.signInWithIdp(
                    "facebook.com", idToken: #"{"sub":"dev-fb","email":"dev@example.com","name":"Dev"}"#))
            #expect(json["isNewUser"] == true)
            #expect(json["federatedId"] == "http://facebook.com/dev-fb")
            #expect(json["displayName"] == "Dev")
            let unsigned = Accounts.unsignedCustomToken(["sub": "dev-ms", "email": "ms@example.com"])
            let jwt = try expectOK(await client.signInWithIdp("microsoft.com", idToken: unsigned))
            #expect(jwt["isNewUser"] == true)
            let claims = try #require(Accounts.claims(jwt["idToken"]?.stringValue ?? ""))
            #expect(claims["firebase"]?["sign_in_provider"] == "microsoft.com")
            expectAuthError(
                try await client.signInWithIdp("facebook.com", idToken: #"{"email":"x@example.com"}"#),
                "INVALID_IDP_RESPONSE")
            expectAuthError(try await client.signInWithIdp("password", idToken: #"{"sub":"1"}"#), "INVALID_PROVIDER_ID")
        }
    }

    // The admin API's `accounts:update` with `linkProviderUserInfo` (what the Node Admin SDK's `providerToLink` sends).
    @Test("an admin links a provider identity to an account; that identity then signs the account in")
    func adminLinks() async throws {
        try await Providers.withServer { server, idp in
            let client = server.client
            let account = try await client.signUp("linked-by-admin@example.com")
            let uid = try #require(account["localId"]?.stringValue)
            let link: JSONValue = [
                "localId": .string(uid),
                "linkProviderUserInfo": ["providerId": "oidc.fake", "rawId": "admin-linked", "displayName": "Al"],
            ]
            let updated = try expectOK(await client.admin("update", link, credential: Providers.adminKey))
            let providers = updated["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue }
            #expect(providers?.sorted() == ["oidc.fake", "password"])
            let signedIn = try expectOK(
                await client.signInWithIdp("oidc.fake", idToken: try idp.idToken(["sub": "admin-linked"])))
            #expect(signedIn["localId"]?.stringValue == uid)
            #expect(signedIn["isNewUser"] == false)
            // The identity is taken now; a client may not link by this route at all.
            let other = try await client.signUp("other-admin-link@example.com")
            var second = link
            if case .object(var members) = second {
                members["localId"] = other["localId"]
                second = .object(members)
            }
            expectAuthError(
                try await client.admin("update", second, credential: Providers.adminKey),
                "FEDERATED_USER_ID_ALREADY_LINKED")
            var byClient = link
            if case .object(var members) = byClient {
                members["idToken"] = other["idToken"]
                members["localId"] = nil
                byClient = .object(members)
            }
            expectAuthError(try await client.accounts("update", byClient), "INSUFFICIENT_PERMISSION")
        }
    }

    /// Firebase's "multiple accounts per email address": a provider address another account has makes an account
    /// of its own, with that address; the password still signs in to the address's owner, and no second password
    /// account can take it.
    @Test func multipleAccountsPerEmail() async throws {
        try await Providers.withServer(extraArguments: ["--multiple-accounts-per-email"]) { server, idp in
            let client = server.client
            let owner = try #require(try await client.signUp("sam@example.com")["localId"]?.stringValue)
            let google = try idp.idToken(["sub": "g-sam", "email": "sam@example.com", "email_verified": true])
            let viaGoogle = try expectOK(await client.signInWithIdp("google.com", idToken: google))
            #expect(viaGoogle["needConfirmation"] == nil)
            #expect(viaGoogle["isNewUser"] == true)
            #expect(viaGoogle["email"] == "sam@example.com")
            let googleUID = try #require(viaGoogle["localId"]?.stringValue)
            #expect(googleUID != owner)
            #expect(try await client.account(googleUID)["email"] == "sam@example.com")
            let claims = try #require(Accounts.claims(viaGoogle["idToken"]?.stringValue ?? ""))
            #expect(claims["email"] == "sam@example.com")
            // The same identity signs the same account in again; a third provider makes a third account.
            let again = try expectOK(await client.signInWithIdp("google.com", idToken: google))
            #expect(again["localId"]?.stringValue == googleUID)
            let facebook = idp.facebookToken(
                appID: Providers.facebookApp, user: ["id": "fb-sam", "name": "Sam", "email": "sam@example.com"])
            let viaFacebook = try expectOK(await client.signInWithIdp("facebook.com", accessToken: facebook))
            #expect(viaFacebook["isNewUser"] == true)
            #expect(Set([owner, googleUID, viaFacebook["localId"]?.stringValue ?? ""]).count == 3)
            #expect(try await client.accountCount() == 3)

            let password = try expectOK(
                await client.accounts(
                    "signInWithPassword",
                    ["email": "sam@example.com", "password": "secret-password", "returnSecureToken": true]))
            #expect(password["localId"]?.stringValue == owner)
            expectAuthError(
                try await client.accounts(
                    "signUp", ["email": "sam@example.com", "password": "another-password", "returnSecureToken": true]),
                "EMAIL_EXISTS")
            #expect(try await client.accountCount() == 3)
        }
    }
}
