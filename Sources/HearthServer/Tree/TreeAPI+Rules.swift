import HearthCore
import HearthHTTP

extension TreeAPI {
    /// `/.settings/rules.json`: read or replace the tree rules in force for the request's namespace (`?ns=`). Both
    /// need development mode or the admin credential, as Firebase needs the database secret or an admin token. Rules
    /// with an error are refused with 400 and `file:line:column`; the previous rules stay.
    /// Replacing re-judges every open stream (`TreeListenHub.recheckAccess`, through the engine's observer).
    func rules(_ request: TreeRequest, _ http: HTTPRequest, auth: AuthContext?) throws(HearthError) -> HTTPReply {
        guard configuration.devMode || auth?.isAdmin == true else { throw Self.permissionDenied }
        switch request.method {
        case "GET":
            return .response(
                TreeResponses.bytes(
                    Array(access.engine.databaseRules(for: request.namespace).source.utf8), request.printing))
        case "PUT":
            if http.bodyTooLarge { throw HearthError(.resourceExhausted, "The rules are too large.") }
            try access.engine.replaceDatabaseRules(
                source: String(decoding: http.body, as: UTF8.self), namespace: request.namespace)
            return .response(TreeResponses.json(.object(["status": .string("ok")]), request.printing))
        default:
            throw HearthError(.unimplemented, "Method \(request.method) is not supported on the rules; use GET or PUT.")
        }
    }
}
