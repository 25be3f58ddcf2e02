import HearthCore
import HearthHTTP

/// One call of the Firestore gRPC service as its methods see it: which method, the caller's metadata and
/// address, and the request messages as they arrive (one for a unary or server-streaming method, any number for
/// `Listen` and `Write`).
struct GRPCCall: Sendable {
    /// The method's name within the service (`Commit`, `RunQuery`, …).
    let method: String
    /// The request's metadata (HTTP/2 headers, lowercased names, pseudo-headers excluded).
    let metadata: HTTPHeaders
    /// The client's address, for the per-caller limits of callers who are not signed in.
    let remoteAddress: String

    /// The call as the one authenticator every API uses sees it: its metadata as headers (`authorization:
    /// Bearer <ID token>`, the admin credential, `Bearer owner` in development mode), on the path of the
    /// `database` it names, so the project and the credential are judged exactly as for a REST request. No
    /// console cookie reaches it: gRPC clients are not browsers.
    func credentialRequest(for database: DatabaseName) -> HTTPRequest {
        HTTPRequest(
            method: "POST", path: "/v1/\(database.documentsRoot)", headers: metadata, remoteAddress: remoteAddress)
    }
}

/// Where a call's answers go, in order; each is one protobuf message (the transport frames it). Suspends while
/// the client has not read what was sent before, so a slow reader holds the method back rather than growing memory.
protocol GRPCAnswers: Sendable {
    /// Sends one answer message.
    /// - Throws: when the call ended (the client cancelled or went away); the method then stops.
    func send(_ message: [UInt8]) async throws
}
