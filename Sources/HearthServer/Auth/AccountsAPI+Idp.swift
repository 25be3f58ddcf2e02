import HearthAuth
import HearthCore
import HearthHTTP

/// `accounts:signInWithIdp`: a provider credential in `postBody`, Identity Toolkit's `VerifyAssertionResponse` out.
extension AccountsAPI {
    func signInWithIdp(_ body: [String: JSONValue], _ context: RequestContext) throws(AuthError) -> HTTPResponse {
        let fields = Fields(object: body)
        guard let requestURI = fields.string("requestUri"), !requestURI.isEmpty else {
            throw AuthError("MISSING_REQUEST_URI")
        }
        let post = Fields(object: AccountsJSON.formFields(fields.string("postBody") ?? ""))
        let returnCredential = fields.bool("returnIdpCredential") ?? false
        if post.string("providerId") == nil, fields.string("sessionId") != nil || requestURI.contains("code=") {
            // The end of a browser sign-in that createAuthUri started.
            let result = try service.signInWithIdp(
                IdpSignInRequest(
                    requestURI: requestURI, sessionID: fields.string("sessionId"), idToken: fields.string("idToken")),
                context: context)
            return AccountsJSON.response(Self.assertionResponse(result, returnCredential: returnCredential))
        }
        guard let providerID = post.string("providerId"), !providerID.isEmpty else {
            throw AuthError("INVALID_IDP_RESPONSE", "postBody has no providerId")
        }
        let credential = IdentityProviders.Credential(
            providerID: providerID, idToken: post.string("id_token"), accessToken: post.string("access_token"),
            rawNonce: post.string("nonce"))
        let result = try service.signInWithIdp(
            IdpSignInRequest(credential: credential, idToken: fields.string("idToken")), context: context)
        return AccountsJSON.response(Self.assertionResponse(result, returnCredential: returnCredential))
    }

    /// Identity Toolkit's answer to a provider sign-in: the identity, the account, tokens — or `needConfirmation`
    /// with the address and the existing account's methods and no tokens.
    static func assertionResponse(_ result: IdpSignInResult, returnCredential: Bool) -> [String: JSONValue] {
        let identity = result.identity
        var object: [String: JSONValue] = [
            "kind": "identitytoolkit#VerifyAssertionResponse", "providerId": .string(identity.providerID),
            "federatedId": .string(identity.federatedID),
            "rawUserInfo": .string(JSONValue.object(identity.rawUserInfo).jsonString),
        ]
        if let email = identity.email { object["email"] = .string(email) }
        if let name = identity.displayName { object["displayName"] = .string(name) }
        if let photo = identity.photoURL { object["photoUrl"] = .string(photo) }
        object["emailVerified"] = .bool(identity.emailVerified)
        if returnCredential || result.needConfirmation {
            // The SDKs build the pending credential of "account exists with different credential" from these.
            if let token = identity.idToken { object["oauthIdToken"] = .string(token) }
            if let token = identity.accessToken { object["oauthAccessToken"] = .string(token) }
        }
        if result.needConfirmation {
            object["needConfirmation"] = true
            object["verifiedProvider"] = .array(result.existingMethods.map { .string($0) })
            return object
        }
        if let user = result.user {
            object["localId"] = .string(user.uid)
            object["isNewUser"] = .bool(result.isNewUser)
        }
        AccountsJSON.add(result.tokens, to: &object)
        return object
    }
}
