import HearthCore
import HearthHTTP
import HearthStore

/// Firestore's Admin API list of composite indexes, `GET /v1/projects/{p}/databases/{d}/collectionGroups/{c}/indexes`
/// (`-` for every collection group), as `gcloud firestore indexes composite list` and the console read it: each
/// index's fields, scope and `state` (`CREATING` while it is built, then `READY`). Hearth adds a building index's
/// `progressDocuments` (`{completedWork, estimatedWork}`, the shape Firestore's index operations report) and
/// `missingIndexes`: the indexes queries were refused for since the server started, each in `firestore.indexes.json`
/// form, ready to be declared. `GET /v1/projects/{p}/databases/{d}/operations` lists the builds under way as Firestore's
/// long-running operations. Development mode, or the admin credential.
struct IndexesAPI: API {
    let store: any DocumentStoreAdministration
    let configuration: ServerConfiguration
    let authenticator: RequestAuthenticator

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false)
        // ["", "v1", "projects", p, "databases", d, "collectionGroups", c, "indexes"]
        let isList =
            parts.count == 9 && parts[1] == "v1" && parts[2] == "projects" && parts[4] == "databases"
            && parts[6] == "collectionGroups" && parts[8] == "indexes"
        // ["", "v1", "projects", p, "databases", d, "operations"]
        let isOperations =
            parts.count == 7 && parts[1] == "v1" && parts[2] == "projects" && parts[4] == "databases"
            && parts[6] == "operations"
        guard isList || isOperations else { return nil }
        let route = isList ? "indexes.list" : "indexes.operations"
        do throws(HearthError) {
            if !configuration.devMode {
                guard try authenticator.authenticate(request)?.isAdmin == true else {
                    throw HearthError(
                        .permissionDenied, "Listing indexes and their builds needs --dev or the admin credential.")
                }
            }
            guard request.method == "GET" else {
                throw HearthError.notFound("Method \(request.method) is not supported here; use GET.")
            }
            guard parts[3] == Substring(configuration.projectID) else {
                throw HearthError.notFound(
                    "No project \(parts[3].prefix(100)) here; this server serves \(configuration.projectID).")
            }
            if isOperations {
                return (route, .response(Responses.json(operations(database: parts[5]).serialized())))
            }
            let group = parts[7]
            let prefix = "projects/\(configuration.projectID)/databases/\(parts[5])/collectionGroups/"
            var indexes: [JSONValue] = []
            for (position, status) in store.indexStatuses().enumerated()
            where group == "-" || group == Substring(status.definition.collectionID) {
                var entry = Self.json(status.definition)
                entry["name"] = .string(prefix + "\(status.definition.collectionID)/indexes/\(position + 1)")
                entry["state"] = .string(status.ready ? "READY" : "CREATING")
                if !status.ready { entry["progressDocuments"] = Self.progress(status) }
                indexes.append(.object(entry))
            }
            let missing = store.missingIndexes().filter { group == "-" || group == Substring($0.collectionID) }
            let answer: JSONValue = [
                "indexes": .array(indexes), "missingIndexes": .array(missing.map { .object(Self.json($0)) }),
            ]
            return (route, .response(Responses.json(answer.serialized())))
        } catch {
            return (route, .response(Responses.error(error)))
        }
    }

    /// Firestore's `ListOperationsResponse` for the index builds under way: one `Operation` per building index,
    /// not done, with `IndexOperationMetadata` (the index's name, `PROCESSING`, `progressDocuments`). Hearth keeps no
    /// record of finished builds, so a ready index has no operation.
    private func operations(database: Substring) -> JSONValue {
        let root = "projects/\(configuration.projectID)/databases/\(database)"
        var operations: [JSONValue] = []
        for (position, status) in store.indexStatuses().enumerated() where !status.ready {
            let index = "\(root)/collectionGroups/\(status.definition.collectionID)/indexes/\(position + 1)"
            operations.append([
                "name": .string("\(root)/operations/index-build-\(position + 1)"), "done": false,
                "metadata": [
                    "@type": "type.googleapis.com/google.firestore.admin.v1.IndexOperationMetadata",
                    "index": .string(index), "state": "PROCESSING", "progressDocuments": Self.progress(status),
                ],
            ])
        }
        return ["operations": .array(operations)]
    }

    /// A build's progress in the shape of Firestore's `IndexOperationMetadata.progressDocuments` (int64 as strings,
    /// as proto3 JSON writes them); `estimatedWork` is left out until the build has counted its documents.
    private static func progress(_ status: IndexStatus) -> JSONValue {
        var progress: [String: JSONValue] = ["completedWork": .string(String(status.completedDocuments))]
        if let estimated = status.estimatedDocuments {
            progress["estimatedWork"] = .string(String(max(estimated, status.completedDocuments)))
        }
        return .object(progress)
    }

    /// The definition's `firestore.indexes.json` entry as an object (its canonical text, parsed back).
    private static func json(_ definition: IndexDefinition) -> [String: JSONValue] {
        (try? JSONParser.parse(definition.description))?.objectValue ?? [:]
    }
}
