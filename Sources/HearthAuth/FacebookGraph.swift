import HearthCore

/// Checks a Facebook user access token through the Graph API: `debug_token` (with the app's own access token,
/// `APP_ID|APP_SECRET`) must say the token is valid and was issued to this app, then `/me` gives the user's id,
/// name, email and picture. Facebook does not vouch for addresses, so the email is unverified.
struct FacebookGraph: Sendable {
    let configuration: IdentityProviderConfiguration
    let fetcher: ProviderFetcher

    func verify(accessToken: String) throws(AuthError) -> FederatedIdentity {
        guard let appID = configuration.clientIDs.first, let secret = configuration.clientSecret else {
            throw AuthError.operationNotAllowed
        }
        let base = configuration.expectedAPIURL
        let debug = try fetcher.json(
            "\(base)/debug_token?input_token=\(AccountService.percentEncode(accessToken))"
                + "&access_token=\(AccountService.percentEncode("\(appID)|\(secret)"))")
        let data = debug.value["data"]
        guard debug.status == 200, data?["is_valid"] == .bool(true) else {
            throw AuthError.invalidIdpResponse("Facebook says the access token is not valid")
        }
        guard Self.string(data?["app_id"]) == appID else {
            throw AuthError.invalidIdpResponse("the access token was issued to another Facebook app")
        }
        let me = try fetcher.json(
            "\(base)/me?fields=id,name,email,picture&access_token=\(AccountService.percentEncode(accessToken))")
        guard me.status == 200, case .object(let user) = me.value, let id = Self.string(user["id"]), !id.isEmpty,
            id == Self.string(data?["user_id"]) ?? id
        else {
            throw AuthError.invalidIdpResponse("Facebook's /me answered HTTP \(me.status) without the user")
        }
        var identity = FederatedIdentity(providerID: configuration.providerID, rawID: id)
        if let email = user["email"]?.stringValue, Validation.isValidEmail(email) {
            identity.email = Validation.canonicalEmail(email)
        }
        identity.displayName = user["name"]?.stringValue
        identity.photoURL = user["picture"]?["data"]?["url"]?.stringValue
        identity.rawUserInfo = user
        identity.accessToken = accessToken
        return identity
    }

    /// IDs come as strings, but a number is read too.
    static func string(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: text
        case .integer(let number)?: String(number)
        default: nil
        }
    }
}

/// Checks a GitHub access token through the REST API: `/user` gives the account, `/user/emails` its verified
/// primary address (absent when the token lacks the `user:email` scope).
struct GitHubAPI: Sendable {
    let configuration: IdentityProviderConfiguration
    let fetcher: ProviderFetcher

    func verify(accessToken: String) throws(AuthError) -> FederatedIdentity {
        let base = configuration.expectedAPIURL
        let headers = [("Authorization", "Bearer \(accessToken)"), ("X-GitHub-Api-Version", "2022-11-28")]
        let user = try fetcher.json("\(base)/user", headers: headers)
        guard user.status == 200, case .object(let object) = user.value,
            let id = FacebookGraph.string(object["id"]), !id.isEmpty
        else {
            throw AuthError.invalidIdpResponse("GitHub refused the access token (HTTP \(user.status))")
        }
        var identity = FederatedIdentity(providerID: configuration.providerID, rawID: id)
        identity.displayName = object["name"]?.stringValue ?? object["login"]?.stringValue
        identity.photoURL = object["avatar_url"]?.stringValue
        identity.rawUserInfo = object
        identity.accessToken = accessToken
        let emails = try fetcher.json("\(base)/user/emails", headers: headers)
        if emails.status == 200, let list = emails.value.arrayValue,
            let primary = list.first(where: { $0["primary"] == .bool(true) && $0["verified"] == .bool(true) }),
            let email = primary["email"]?.stringValue, Validation.isValidEmail(email)
        {
            identity.email = Validation.canonicalEmail(email)
            identity.emailVerified = true
        }
        return identity
    }
}
