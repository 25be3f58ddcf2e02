import Foundation
import HearthCore
import HearthHTTP
import HearthLog
import HearthStorePostgres
import HearthStoreSQLite
import Synchronization

/// The projects a server serves: the configured one, in the data directory, the `additionalProjects`, and — in
/// development mode — every other project ID a request names, each opened on first use in `projects/{id}` with the
/// same layout, as the emulator keeps projects apart. Any other request goes to the configured project, whose APIs
/// refuse other project IDs outside development mode.
final class ProjectRegistry: Sendable {
    /// The configured project.
    let primary: ProjectServer
    private let others = Mutex<[String: ProjectServer]>([:])
    private let open: @Sendable (ServerConfiguration) throws(HearthError) -> ProjectServer

    /// The directory under the data directory that holds development mode's other projects.
    static let projectsDirectory = DataDirectoryLayout.projects
    /// The header Hearth's SDK sends with requests whose path names no project (Identity Toolkit's `accounts:…`,
    /// Secure Token's `token`), so its app's accounts are its project's in development mode. Firebase's own SDKs do
    /// not send it; their unprojected requests go to the configured project, as the Auth emulator's do.
    static let projectHeader = "X-Hearth-Project"

    /// A registry around the opened `primary`; `open` opens another project from its configuration.
    init(
        primary: ProjectServer,
        open: @escaping @Sendable (ServerConfiguration) throws(HearthError) -> ProjectServer
    ) {
        self.primary = primary
        self.open = open
    }

    /// The project `request` is for: the one its path or ``projectHeader`` names, opened if need be.
    /// - Throws: `RESOURCE_EXHAUSTED` past `maxDevProjects`, or why the project's directory cannot be opened.
    func project(for request: HTTPRequest) throws(HearthError) -> ProjectServer {
        let configuration = primary.configuration
        guard configuration.devMode || !configuration.additionalProjects.isEmpty,
            let id = Self.projectID(in: request.path) ?? request.headers[Self.projectHeader],
            id != configuration.projectID, Self.isDirectoryName(id),
            configuration.devMode || configuration.additionalProjects.contains(id)
        else { return primary }
        return try others.withLock { (others: inout [String: ProjectServer]) throws(HearthError) -> ProjectServer in
            if let open = others[id] { return open }
            guard others.count + 1 < max(configuration.maxDevProjects, configuration.additionalProjects.count + 1)
            else {
                throw HearthError(
                    .resourceExhausted,
                    "Development mode serves at most \(configuration.maxDevProjects) projects at once; project \(id) is one too many (restart the server to close the others)."
                )
            }
            var project = configuration
            project.projectID = id
            project.dataDirectory = Self.directory(of: id, in: configuration.dataDirectory)
            if case .postgres(let conninfo) = configuration.store {
                // Another project's databases live in schemas of their own beside the configured project's; its
                // directory still holds what stays per node (deployed rules, stored files), as SQLite's would.
                project.store = .postgres(conninfo: try PostgresNamedDatabases.conninfo(conninfo, project: id))
                do {
                    try FileManager.default.createDirectory(
                        atPath: project.dataDirectory, withIntermediateDirectories: true)
                } catch {
                    throw HearthError(
                        .internal, "Cannot make the directory of project \(id): \(error.localizedDescription)")
                }
            }
            let server = try open(project)
            do throws(HearthError) {
                try server.start()
            } catch {
                server.stop()
                throw error
            }
            primary.context.logger.info("development mode: opened another project", ["project": .string(id)])
            others[id] = server
            return server
        }
    }

    /// Every open project.
    var all: [ProjectServer] { [primary] + others.withLock { Array($0.values) } }

    /// Stops every other project, then the primary.
    func stop() {
        let opened = others.withLock { others in
            defer { others = [:] }
            return Array(others.values)
        }
        for project in opened { project.stop() }
        primary.stop()
    }

    /// `DIR/projects/{id}`.
    static func directory(of id: String, in dataDirectory: String) -> String {
        ((dataDirectory as NSString).appendingPathComponent(projectsDirectory) as NSString).appendingPathComponent(id)
    }

    /// The project ID a path names: `/v1/projects/{p}…`, `/v1beta1/projects/{p}…`, `/emulator/v1/projects/{p}…`,
    /// `/identitytoolkit.googleapis.com/v1/projects/{p}…` (the ID ends at `/`, `:` or the end).
    static func projectID(in path: String) -> String? {
        let prefixes = [
            "/v1/projects/", "/emulator/v1/projects/", "/identitytoolkit.googleapis.com/v1/projects/",
            "/v1beta1/projects/",
        ]
        guard let prefix = prefixes.first(where: { path.hasPrefix($0) }) else { return nil }
        let rest = path.utf8.dropFirst(prefix.utf8.count)
        let end = rest.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: ":") }) ?? rest.endIndex
        let id = String(decoding: rest[rest.startIndex..<end], as: UTF8.self)
        return id.isEmpty ? nil : id
    }

    /// Whether `id` is safe as a directory name: 1 to 100 ASCII letters, digits, `-`, `_` and `.`, not starting with
    /// `.`. Other IDs (which Firebase would refuse anyway) share the configured project.
    static func isDirectoryName(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard (1...100).contains(bytes.count), bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }
}

/// The responder's first API: hands a request to the project it is for (``ProjectRegistry``); what no project API
/// claims (files, the tree, the console, health) falls through to the server-wide APIs after it.
struct ProjectDispatch: API {
    let registry: ProjectRegistry

    func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        do {
            return try registry.project(for: request).reply(to: request)
        } catch {
            return ("projects.open", .response(Responses.error(error)))
        }
    }
}
