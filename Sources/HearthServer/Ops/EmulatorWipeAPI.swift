import HearthCore
import HearthHTTP
import HearthStore

/// The Firestore emulator's wipe, `DELETE /emulator/v1/projects/{p}/databases/{d}/documents`: every document of one
/// database of one project, nothing else (development mode only).
struct EmulatorWipeAPI: Sendable {
    let store: any DocumentStoreAdministration
    let configuration: ServerConfiguration

    /// Answers a wipe request (its path already matched).
    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        ("emulator.wipe", wipe(request))
    }

    private func wipe(_ request: HTTPRequest) -> HTTPReply {
        guard configuration.devMode else {
            return .response(
                Responses.error(HearthError(.permissionDenied, "The emulator endpoints are only served with --dev.")))
        }
        guard request.method == "DELETE" else {
            return .response(
                Responses.error(
                    .notFound("Method \(request.method) is not supported here; use DELETE to wipe all documents.")))
        }
        return .deferred { respond in
            store.deleteAllDocuments { result in
                switch result {
                case .success: respond(Responses.emptyObject)
                case .failure(let error): respond(Responses.error(error))
                }
            }
        }
    }
}
