import Foundation
import HearthCore
import HearthHTTP

/// Firestore's Admin API for a project's databases, as `gcloud firestore databases create|list|describe|delete`
/// calls it: `GET /v1/projects/{p}/databases`, `POST /v1/projects/{p}/databases?databaseId={d}`,
/// `GET`/`DELETE /v1/projects/{p}/databases/{d}`. Creating and deleting answer a finished long-running operation.
/// Development mode (where a named database also opens when a request first names it), or the admin credential.
struct DatabasesAPI {
    let project: ProjectServer

    /// Whether `path` is one of this API's: `/v1/projects/{p}/databases` or `/v1/projects/{p}/databases/{d}`.
    static func matches(_ path: String) -> (project: Substring, database: Substring?)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5 || parts.count == 6, parts[1] == "v1", parts[2] == "projects", parts[4] == "databases"
        else { return nil }
        return (parts[3], parts.count == 6 ? parts[5] : nil)
    }

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        guard let (projectID, databaseID) = Self.matches(request.path) else { return nil }
        let route = "databases.\(databaseID == nil ? "collection" : "database")"
        do throws(HearthError) {
            let configuration = project.configuration
            if !configuration.devMode {
                guard try project.authenticator.authenticate(request)?.isAdmin == true else {
                    throw HearthError(.permissionDenied, "Managing databases needs --dev or the admin credential.")
                }
            }
            let name = DatabaseName(project: String(projectID), database: String(databaseID ?? ""))
            switch (request.method, databaseID) {
            case ("GET", nil):
                _ = try project.database(DatabaseName(project: name.project), creating: false)
                let ids = [DatabaseName.defaultDatabase] + project.namedDatabaseIDs()
                let list = ids.map { Self.resource(DatabaseName(project: name.project, database: $0)) }
                return (route, .response(Responses.json(JSONValue.object(["databases": .array(list)]).serialized())))
            case ("POST", nil):
                guard let id = request.queryValue("databaseId"), !id.isEmpty else {
                    throw .invalidArgument("Creating a database needs ?databaseId={id}.")
                }
                let created = DatabaseName(project: name.project, database: id)
                guard id != DatabaseName.defaultDatabase,
                    (try? project.database(created, creating: false)) == nil
                else {
                    throw HearthError(
                        .alreadyExists, "Database projects/\(name.project)/databases/\(id) already exists.")
                }
                _ = try project.database(created, creating: true)
                return (route, .response(Responses.json(Self.operation(created, verb: "create").serialized())))
            case ("GET", .some):
                _ = try project.database(name, creating: false)
                return (route, .response(Responses.json(Self.resource(name).serialized())))
            case ("DELETE", .some):
                try project.deleteNamedDatabase(name)
                return (route, .response(Responses.json(Self.operation(name, verb: "delete").serialized())))
            default:
                throw HearthError.notFound("Method \(request.method) is not supported here.")
            }
        } catch {
            return (route, .response(Responses.error(error)))
        }
    }

    /// A `google.firestore.admin.v1.Database` resource.
    static func resource(_ name: DatabaseName) -> JSONValue { .object(fields(name)) }

    private static func fields(_ name: DatabaseName) -> [String: JSONValue] {
        [
            "name": .string("projects/\(name.project)/databases/\(name.database)"), "locationId": "local",
            "type": "FIRESTORE_NATIVE", "concurrencyMode": "OPTIMISTIC",
        ]
    }

    /// A finished long-running operation whose response is the database.
    static func operation(_ name: DatabaseName, verb: String) -> JSONValue {
        var response = fields(name)
        response["@type"] = "type.googleapis.com/google.firestore.admin.v1.Database"
        return [
            "name": .string("projects/\(name.project)/databases/\(name.database)/operations/\(verb)"),
            "done": true, "response": .object(response),
        ]
    }
}
