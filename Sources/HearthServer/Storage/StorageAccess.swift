import HearthCore
import HearthHTTP

/// Who may do what to stored files: the one check every Storage route makes.
///
/// Admin callers (the admin key) may do anything. Storage rules are not implemented yet, so — as documents are
/// without a rules file — every other caller may do anything in development mode and nothing otherwise. A request
/// that carries a credential that does not verify is refused either way.
struct StorageAccess: Sendable {
    /// What a request does, in the rules language's method names.
    enum Operation: String {
        case get, list, create, update, delete
    }

    let authenticator: RequestAuthenticator
    let devMode: Bool

    /// Throws `UNAUTHENTICATED` for a bad credential, `PERMISSION_DENIED` when the caller may not `operation`.
    func check(_ request: HTTPRequest, _ operation: Operation, bucket: String, name: String) throws(HearthError) {
        let auth = try authenticator.authenticate(request)
        if auth?.isAdmin == true || devMode { return }
        throw HearthError(
            .permissionDenied,
            "Permission denied: \(operation.rawValue) of \(name.isEmpty ? "objects" : name) in bucket \(bucket). "
                + "Without storage rules only the admin credential may use storage outside --dev.")
    }
}
