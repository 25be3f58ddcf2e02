import HearthAuth
import HearthCore
import HearthHTTP

/// Development mode's emulator endpoints: the outbox of codes, and wiping every account.
extension AccountsAPI {
    func emulator(_ request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false)
        // /emulator/v1/projects/{p}/oobCodes | /emulator/v1/projects/{p}/accounts
        guard parts.count == 6, parts[4].isEmpty == false, parts[5] == "oobCodes" || parts[5] == "accounts" else {
            return nil
        }
        let route = "emulator.\(parts[5])"
        guard configuration.devMode else {
            return (
                route,
                .response(
                    Responses.error(
                        HearthError(.permissionDenied, "The emulator endpoints are only served with --dev.")))
            )
        }
        switch (parts[5], request.method) {
        case ("oobCodes", "GET"):
            let codes: [JSONValue] = service.issuedCodes.map { entry in
                var object: [String: JSONValue] = [
                    "email": .string(entry.email), "oobCode": .string(entry.oobCode), "oobLink": .string(entry.oobLink),
                    "requestType": .string(entry.requestType.rawValue),
                ]
                if let newEmail = entry.newEmail { object["newEmail"] = .string(newEmail) }
                return .object(object)
            }
            return (route, .response(AccountsJSON.response(["oobCodes": .array(codes)])))
        case ("accounts", "DELETE"):
            return (
                route,
                work(request) { () throws(AuthError) in
                    try service.deleteAllAccounts()
                    return AccountsJSON.response([:])
                }
            )
        default:
            return (route, .response(methodNotAllowed(request.method)))
        }
    }
}
