import Foundation
import HearthCore

/// Calls the Identity Toolkit and Secure Token endpoints and maps their errors to ``AuthErrorCode``.
struct AccountsClient: Sendable {
    let app: HearthApp

    /// `POST /identitytoolkit.googleapis.com/v1/accounts:{method}?key=…` with a JSON body.
    func call(_ method: String, _ body: [String: JSONValue]) async throws(AuthErrorCode) -> JSONValue {
        let url = endpoint("identitytoolkit.googleapis.com/v1/accounts:\(method)")
        let data = Data(JSONValue.object(body).serialized())
        return try await send(url, body: data, contentType: "application/json")
    }

    /// `accounts:signInWithIdp` with `credential`, linking to the account of `linking` (an ID token) when given.
    /// A `needConfirmation` answer becomes `accountExistsWithDifferentCredential` carrying the address and the
    /// credential to link later.
    func signInWithIdp(_ credential: AuthCredential, linking: String?) async throws(AuthErrorCode) -> JSONValue {
        guard let oauth = credential as? OAuthCredential else {
            throw AuthErrorCode(.internalError, "Unsupported credential for \(credential.provider).")
        }
        var body: [String: JSONValue] = [
            "postBody": .string(oauth.postBody), "requestUri": "http://localhost", "returnSecureToken": true,
            "returnIdpCredential": true,
        ]
        if let redirect = oauth.redirect {
            // A browser sign-in: the server exchanges the redirect's code within its session.
            body["postBody"] = nil
            body["requestUri"] = .string(redirect.requestURI)
            body["sessionId"] = .string(redirect.sessionID)
        }
        if let linking { body["idToken"] = .string(linking) }
        let json = try await call("signInWithIdp", body)
        if json["needConfirmation"]?.boolValue == true {
            let email = json["email"]?.stringValue
            let pending = OAuthCredential(
                provider: oauth.provider, idToken: json["oauthIdToken"]?.stringValue ?? oauth.idToken,
                accessToken: json["oauthAccessToken"]?.stringValue ?? oauth.accessToken, rawNonce: oauth.rawNonce,
                fullName: oauth.fullName)
            throw AuthErrorCode(
                .accountExistsWithDifferentCredential,
                "An account already exists with the same email address but different sign-in credentials.",
                email: email, updatedCredential: pending)
        }
        return json
    }

    /// `POST /securetoken.googleapis.com/v1/token` with a refresh token; answers `id_token`, `refresh_token`,
    /// `expires_in` and `user_id`.
    func refresh(_ refreshToken: String) async throws(AuthErrorCode) -> JSONValue {
        let url = endpoint("securetoken.googleapis.com/v1/token")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = refreshToken.addingPercentEncoding(withAllowedCharacters: allowed) ?? refreshToken
        let body = Data("grant_type=refresh_token&refresh_token=\(encoded)".utf8)
        return try await send(url, body: body, contentType: "application/x-www-form-urlencoded")
    }

    private func endpoint(_ path: String) -> URL {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let key = app.options.apiKey.addingPercentEncoding(withAllowedCharacters: allowed) ?? app.options.apiKey
        let base = app.serverURL.absoluteString.trimmingSuffix("/")
        return URL(string: "\(base)/\(path)?key=\(key)")!
    }

    private func send(_ url: URL, body: Data, contentType: String) async throws(AuthErrorCode) -> JSONValue {
        let request = TransportRequest(
            method: "POST", url: url,
            headers: [
                "Content-Type": contentType,
                // The server's development mode keeps each project's accounts apart; these paths name no project.
                "X-Hearth-Project": app.options.projectID,
            ], body: body)
        let response: TransportResponse
        do {
            response = try await app.transport.send(request)
        } catch {
            throw AuthErrorCode(.networkError, "The server could not be reached: \(error.localizedDescription)")
        }
        let json = try? JSONParser.parse(Array(response.body))
        guard (200..<300).contains(response.status) else {
            if let message = json?["error"]?["message"]?.stringValue {
                throw AuthErrorCode(serverMessage: message)
            }
            throw AuthErrorCode(.internalError, "Unexpected HTTP status \(response.status).")
        }
        guard let json else { throw AuthErrorCode(.internalError, "The server's answer is not JSON.") }
        return json
    }
}

extension String {
    /// The string without one trailing `suffix`.
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
