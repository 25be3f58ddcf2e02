import Foundation
import HearthAuth
import HearthCore
import HearthHTTP

/// The Identity Toolkit operations: request fields in, Identity Toolkit's response shape out.
extension AccountsAPI {
    typealias Handler = @Sendable ([String: JSONValue], RequestContext) throws(AuthError) -> HTTPResponse

    func handler(for verb: String) -> Handler? {
        switch verb {
        case "signUp": signUp
        case "signInWithPassword": signInWithPassword
        case "signInWithCustomToken": signInWithCustomToken
        case "signInWithIdp": signInWithIdp
        case "lookup": lookup
        case "update": update
        case "sendOobCode": sendOobCode
        case "resetPassword": resetPassword
        case "delete": delete
        case "createAuthUri": createAuthURI
        case "batchDelete": adminOnly(batchDelete)
        case "batchCreate": adminOnly(batchCreate)
        case "query": adminOnly(query)
        default: nil
        }
    }

    private func adminOnly(_ handler: @escaping Handler) -> Handler {
        { body, context throws(AuthError) in
            guard context.isAdmin else { throw AccountsAPI.adminRequired }
            return try handler(body, context)
        }
    }

    func signUp(_ body: [String: JSONValue], _ context: RequestContext) throws(AuthError) -> HTTPResponse {
        let fields = Fields(object: body)
        var request = SignUpRequest()
        request.email = fields.string("email")
        request.password = fields.string("password")
        request.displayName = fields.string("displayName")
        request.photoURL = fields.string("photoUrl")
        request.idToken = fields.string("idToken")
        request.localID = fields.string("localId")
        request.emailVerified = fields.bool("emailVerified")
        request.phoneNumber = fields.string("phoneNumber")
        request.disabled = fields.bool("disabled")
        let result = try service.signUp(request, context: context)
        var object: [String: JSONValue] = [
            "kind": "identitytoolkit#SignupNewUserResponse", "localId": .string(result.user.uid),
        ]
        if let email = result.user.email { object["email"] = .string(email) }
        if let name = result.user.displayName { object["displayName"] = .string(name) }
        AccountsJSON.add(result.tokens, to: &object)
        return AccountsJSON.response(object)
    }

    func signInWithPassword(_ body: [String: JSONValue], _ context: RequestContext) throws(AuthError) -> HTTPResponse {
        let fields = Fields(object: body)
        let result = try service.signInWithPassword(
            email: fields.string("email"), password: fields.string("password"), context: context)
        var object: [String: JSONValue] = [
            "kind": "identitytoolkit#VerifyPasswordResponse", "registered": true, "localId": .string(result.user.uid),
            "email": .string(result.user.email ?? ""), "displayName": .string(result.user.displayName ?? ""),
        ]
        if let photo = result.user.photoURL { object["profilePicture"] = .string(photo) }
        AccountsJSON.add(result.tokens, to: &object)
        return AccountsJSON.response(object)
    }

    func signInWithCustomToken(_ body: [String: JSONValue], _ context: RequestContext) throws(AuthError) -> HTTPResponse
    {
        let result = try service.signInWithCustomToken(Fields(object: body).string("token"), context: context)
        var object: [String: JSONValue] = [
            "kind": "identitytoolkit#VerifyCustomTokenResponse", "isNewUser": .bool(result.isNewUser),
        ]
        AccountsJSON.add(result.tokens, to: &object)
        return AccountsJSON.response(object)
    }

    func lookup(_ body: [String: JSONValue], _ context: RequestContext) throws(AuthError) -> HTTPResponse {
        let fields = Fields(object: body)
        let users: [UserRecord]
        if context.isAdmin && fields.string("idToken") == nil {
            if body["initialEmail"] != nil {
                throw AuthError.notImplemented("Lookup by initialEmail is not supported by Hearth.")
            }
            let identities = (body["federatedUserId"]?.arrayValue ?? []).map { entry in
                (providerID: entry["providerId"]?.stringValue ?? "", rawID: entry["rawId"]?.stringValue ?? "")
            }
            users = try service.lookup(
                uids: fields.strings("localId"), emails: fields.strings("email"),
                phoneNumbers: fields.strings("phoneNumber"), identities: identities)
        } else {
            users = [try service.lookup(idToken: fields.string("idToken"))]
        }
        var object: [String: JSONValue] = ["kind": "identitytoolkit#GetAccountInfoResponse"]
        // No `users` member at all when nothing matched, as Identity Toolkit answers (the Node Admin SDK relies on it).
        if !users.isEmpty { object["users"] = .array(users.map(AccountsJSON.user)) }
        return AccountsJSON.response(object)
    }

    func update(_ body: [String: JSONValue], _ context: RequestContext) throws(AuthError) -> HTTPResponse {
        let fields = Fields(object: body)
        for unsupported in ["provider", "upgradeToFederatedLogin", "mfa"]
        where body[unsupported] != nil {
            throw AuthError.notImplemented("\(unsupported) is not supported by Hearth")
        }
        var request = UpdateRequest()
        request.idToken = fields.string("idToken")
        request.localID = fields.string("localId")
        request.oobCode = fields.string("oobCode")
        request.email = fields.string("email")
        request.password = fields.string("password")
        request.displayName = fields.string("displayName")
        request.photoURL = fields.string("photoUrl")
        request.deleteAttributes = fields.strings("deleteAttribute")
        request.deleteProviders = fields.strings("deleteProvider")
        request.disableUser = fields.bool("disableUser")
        request.emailVerified = fields.bool("emailVerified")
        request.customAttributes = fields.string("customAttributes")
        request.validSince = fields.int("validSince")
        request.phoneNumber = fields.string("phoneNumber")
        request.linkProvider = body["linkProviderUserInfo"].map(ProviderLink.init(json:))
        let result = try service.update(request, context: context)
        let user = result.user
        var object: [String: JSONValue] = [
            "kind": "identitytoolkit#SetAccountInfoResponse", "localId": .string(user.uid),
            "emailVerified": .bool(user.emailVerified), "providerUserInfo": .array(AccountsJSON.providers(user)),
        ]
        if let email = user.email { object["email"] = .string(email) }
        if let name = user.displayName { object["displayName"] = .string(name) }
        if let photo = user.photoURL { object["photoUrl"] = .string(photo) }
        if let newEmail = result.newEmail { object["newEmail"] = .string(newEmail) }
        if user.hasPassword { object["passwordHash"] = "UkVEQUNURUQ=" }
        AccountsJSON.add(result.tokens, to: &object)
        return AccountsJSON.response(object)
    }

    func sendOobCode(_ body: [String: JSONValue], _ context: RequestContext) throws(AuthError) -> HTTPResponse {
        let fields = Fields(object: body)
        var request = OobCodeRequest()
        request.requestType = fields.string("requestType")
        request.email = fields.string("email")
        request.idToken = fields.string("idToken")
        request.newEmail = fields.string("newEmail")
        request.continueURL = fields.string("continueUrl")
        request.returnOobLink = fields.bool("returnOobLink") ?? false
        let result = try service.sendOobCode(request, context: context)
        var object: [String: JSONValue] = [
            "kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(result.email),
        ]
        if let code = result.oobCode { object["oobCode"] = .string(code) }
        if let link = result.oobLink { object["oobLink"] = .string(link) }
        return AccountsJSON.response(object)
    }

    func resetPassword(_ body: [String: JSONValue], _ context: RequestContext) throws(AuthError) -> HTTPResponse {
        let fields = Fields(object: body)
        let result = try service.resetPassword(
            oobCode: fields.string("oobCode"), newPassword: fields.string("newPassword"), context: context)
        var object: [String: JSONValue] = [
            "kind": "identitytoolkit#ResetPasswordResponse", "requestType": .string(result.requestType.rawValue),
            "email": .string(result.email),
        ]
        if let newEmail = result.newEmail { object["newEmail"] = .string(newEmail) }
        return AccountsJSON.response(object)
    }

    /// `accounts:createAuthUri`: the sign-in methods of an address (`fetchSignInMethods(forEmail:)`), or with a
    /// `providerId` the provider's authorization URL for a browser sign-in and its `sessionId`.
    func createAuthURI(_ body: [String: JSONValue], _ context: RequestContext) throws(AuthError) -> HTTPResponse {
        let fields = Fields(object: body)
        guard let continueURI = fields.string("continueUri"), !continueURI.isEmpty else {
            throw AuthError("MISSING_CONTINUE_URI")
        }
        if let providerID = fields.string("providerId"), fields.string("identifier") == nil {
            let (authURI, sessionID) = try service.createAuthURI(
                providerID: providerID, continueURI: continueURI, context: context)
            return AccountsJSON.response([
                "kind": "identitytoolkit#CreateAuthUriResponse", "authUri": .string(authURI),
                "providerId": .string(providerID), "sessionId": .string(sessionID),
            ])
        }
        let methods = try service.signInMethods(email: fields.string("identifier"))
        var object: [String: JSONValue] = [
            "kind": "identitytoolkit#CreateAuthUriResponse",
            "sessionId": .string(fields.string("sessionId") ?? UUID().uuidString),
        ]
        if let methods {
            object["registered"] = .bool(methods.registered)
            object["allProviders"] = .array(methods.methods.map { .string($0) })
            object["signinMethods"] = .array(methods.methods.map { .string($0) })
        }
        return AccountsJSON.response(object)
    }

    func delete(_ body: [String: JSONValue], _ context: RequestContext) throws(AuthError) -> HTTPResponse {
        let fields = Fields(object: body)
        try service.delete(idToken: fields.string("idToken"), localID: fields.string("localId"), context: context)
        return AccountsJSON.response(["kind": "identitytoolkit#DeleteAccountResponse"])
    }

    func batchDelete(_ body: [String: JSONValue], _ context: RequestContext) throws(AuthError) -> HTTPResponse {
        let fields = Fields(object: body)
        let refused = try service.batchDelete(uids: fields.strings("localIds"), force: fields.bool("force") ?? false)
        var object: [String: JSONValue] = [:]
        if !refused.isEmpty {
            object["errors"] = .array(
                refused.map {
                    ["index": .integer(Int64($0.index)), "localId": .string($0.uid), "message": .string($0.message)]
                })
        }
        return AccountsJSON.response(object)
    }

    func query(_ body: [String: JSONValue], _ context: RequestContext) throws(AuthError) -> HTTPResponse {
        let fields = Fields(object: body)
        if let expression = body["expression"]?.arrayValue, !expression.isEmpty {
            throw AuthError.notImplemented("expression is not supported by Hearth")
        }
        if let sortBy = fields.string("sortBy"), !["USER_ID", "SORT_BY_FIELD_UNSPECIFIED"].contains(sortBy) {
            throw AuthError.notImplemented("Only sorting by USER_ID is supported by Hearth")
        }
        let countOnly = fields.bool("returnUserInfo") == false
        let result = try service.queryUsers(
            limit: Int(fields.int("limit") ?? 500), offset: Int(fields.int("offset") ?? 0), countOnly: countOnly)
        var object: [String: JSONValue] = ["recordsCount": .string(String(result.count))]
        if !countOnly { object["userInfo"] = .array(result.users.map(AccountsJSON.user)) }
        return AccountsJSON.response(object)
    }

    /// `GET …/accounts:batchGet?maxResults=&nextPageToken=` (admin).
    func batchGet(_ request: HTTPRequest, context: RequestContext) throws(AuthError) -> HTTPResponse {
        guard context.isAdmin else { throw AccountsAPI.adminRequired }
        let maxResults = request.queryValue("maxResults").flatMap { Int($0) } ?? 20
        let token = request.queryValue("nextPageToken").flatMap { $0.isEmpty ? nil : $0 }
        let page = try service.listUsers(maxResults: maxResults, pageToken: token)
        var object: [String: JSONValue] = [
            "kind": "identitytoolkit#DownloadAccountResponse", "users": .array(page.users.map(AccountsJSON.user)),
        ]
        if let next = page.nextPageToken { object["nextPageToken"] = .string(next) }
        return AccountsJSON.response(object)
    }

    /// `POST /securetoken.googleapis.com/v1/token`: JSON (`grantType`, `refreshToken`) or form (`grant_type`,
    /// `refresh_token`) in, snake_case out.
    func refresh(_ request: HTTPRequest) throws(AuthError) -> HTTPResponse {
        guard apiKey(request) != nil else {
            throw AuthError(
                "The request is missing a valid API key.", status: 403, statusName: "PERMISSION_DENIED",
                reason: "forbidden")
        }
        let fields = Fields(object: try AccountsJSON.body(of: request))
        let result = try service.refresh(
            grantType: fields.string("grantType") ?? fields.string("grant_type"),
            refreshToken: fields.string("refreshToken") ?? fields.string("refresh_token"))
        return AccountsJSON.response([
            "id_token": .string(result.tokens.idToken), "access_token": .string(result.tokens.idToken),
            "expires_in": .string(String(result.tokens.expiresIn)),
            "refresh_token": .string(result.tokens.refreshToken),
            "token_type": "Bearer", "user_id": .string(result.user.uid), "project_id": .string(configuration.projectID),
        ])
    }
}
