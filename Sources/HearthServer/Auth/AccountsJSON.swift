import Foundation
import HearthAuth
import HearthCore
import HearthHTTP

/// Identity Toolkit's JSON: request bodies in, users, tokens and errors out.
enum AccountsJSON {
    /// The error envelope Firebase's SDKs parse:
    /// `{"error":{"code":400,"message":"CODE : detail","errors":[{"message":…,"domain":"global","reason":"invalid"}]}}`.
    /// A server-side failure (500) carries its detail only as far as the responder, which logs it and shows the client
    /// the code with a request ID instead (`FailedAnswer`).
    static func error(_ error: AuthError) -> HTTPResponse {
        let message = error.message
        var body: [String: JSONValue] = [
            "code": .integer(Int64(error.status)), "message": .string(message),
            "errors": [["message": .string(message), "domain": "global", "reason": .string(error.reason)]],
        ]
        if let status = error.statusName { body["status"] = .string(status) }
        return response(["error": .object(body)], status: error.status)
    }

    static func response(_ object: [String: JSONValue], status: Int = 200) -> HTTPResponse {
        Responses.json(JSONValue.object(object).serialized(), status: status)
    }

    /// The request body as an object: JSON, or `application/x-www-form-urlencoded` (the Secure Token API accepts
    /// both); an empty body is `{}`.
    static func body(of request: HTTPRequest) throws(AuthError) -> [String: JSONValue] {
        if request.bodyTooLarge {
            throw AuthError("INVALID_ARGUMENT", "Request payload is too large.", statusName: "INVALID_ARGUMENT")
        }
        if request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return [:] }
        // curl sends `-d` bodies labelled as a form; a body that starts with `{` is JSON whatever its label says.
        let first = request.body.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        if first != UInt8(ascii: "{"),
            request.headers["Content-Type"]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        {
            return formFields(String(decoding: request.body, as: UTF8.self))
        }
        do {
            guard case .object(let object) = try JSONParser.parse(request.body) else {
                throw AuthError(
                    "Invalid JSON payload received. Expected an object.", statusName: "INVALID_ARGUMENT",
                    reason: "parseError")
            }
            return object
        } catch let error as AuthError {
            throw error
        } catch {
            throw AuthError(
                "Invalid JSON payload received. \(error)", statusName: "INVALID_ARGUMENT", reason: "parseError")
        }
    }

    static func formFields(_ text: String) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            if let name = parts.first, !name.isEmpty { fields[name] = .string(parts.count > 1 ? parts[1] : "") }
        }
        return fields
    }

    /// One account as Identity Toolkit's `UserInfo`. `passwordHash` is a fixed placeholder (`REDACTED` in base64, as
    /// Firebase answers): the real hash never leaves the server.
    static func user(_ user: UserRecord) -> JSONValue {
        var object: [String: JSONValue] = [
            "localId": .string(user.uid), "emailVerified": .bool(user.emailVerified), "disabled": .bool(user.disabled),
            "validSince": .string(String(user.validSince)), "createdAt": .string(String(user.createdAt)),
            "providerUserInfo": .array(providers(user)),
        ]
        if let email = user.email { object["email"] = .string(email) }
        if let name = user.displayName { object["displayName"] = .string(name) }
        if let photo = user.photoURL { object["photoUrl"] = .string(photo) }
        if let phone = user.phoneNumber { object["phoneNumber"] = .string(phone) }
        if user.hasPassword {
            object["passwordHash"] = "UkVEQUNURUQ="
            if let updated = user.passwordUpdatedAt { object["passwordUpdatedAt"] = .integer(updated) }
        }
        if let login = user.lastLoginAt { object["lastLoginAt"] = .string(String(login)) }
        if let refresh = user.lastRefreshAt { object["lastRefreshAt"] = .string(rfc3339(milliseconds: refresh)) }
        if let claims = user.customClaims { object["customAttributes"] = .string(claims) }
        if user.customAuth { object["customAuth"] = true }
        return .object(object)
    }

    static func providers(_ user: UserRecord) -> [JSONValue] {
        var providers: [JSONValue] = []
        if let email = user.email, user.hasPassword {
            var info: [String: JSONValue] = [
                "providerId": "password", "email": .string(email), "federatedId": .string(email),
                "rawId": .string(email),
            ]
            if let name = user.displayName { info["displayName"] = .string(name) }
            if let photo = user.photoURL { info["photoUrl"] = .string(photo) }
            providers.append(.object(info))
        }
        if let phone = user.phoneNumber {
            providers.append(["providerId": "phone", "phoneNumber": .string(phone), "rawId": .string(phone)])
        }
        for link in user.providerLinks {
            var info = link.json
            info["federatedId"] = .string(link.federatedID)
            providers.append(.object(info))
        }
        return providers
    }

    /// `idToken`, `refreshToken`, `expiresIn` (a string, as Identity Toolkit sends it).
    static func add(_ tokens: TokenBundle?, to object: inout [String: JSONValue]) {
        guard let tokens else { return }
        object["idToken"] = .string(tokens.idToken)
        object["refreshToken"] = .string(tokens.refreshToken)
        object["expiresIn"] = .string(String(tokens.expiresIn))
    }

    static func rfc3339(milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}

/// Typed, tolerant access to a request body's fields: Identity Toolkit clients send int64s and booleans both as
/// JSON values and as strings.
struct Fields {
    let object: [String: JSONValue]

    func string(_ name: String) -> String? {
        switch object[name] {
        case .string(let text)?: text
        case .integer(let number)?: String(number)
        default: nil
        }
    }

    func bool(_ name: String) -> Bool? {
        switch object[name] {
        case .bool(let flag)?: flag
        case .string(let text)?: text == "true" ? true : text == "false" ? false : nil
        default: nil
        }
    }

    func int(_ name: String) -> Int64? {
        switch object[name] {
        case .integer(let number)?: number
        case .double(let number)? where number.isFinite && abs(number) < 9e15: Int64(number)
        case .string(let text)?: Int64(text)
        default: nil
        }
    }

    /// A list of strings; a single string counts as a list of one.
    func strings(_ name: String) -> [String] {
        switch object[name] {
        case .array(let values)?: values.compactMap(\.stringValue)
        case .string(let text)?: [text]
        default: []
        }
    }
}
