import Foundation

/// Where a data directory keeps each project and each named database, for everything that walks it: the server
/// opening them, `hearth backup`, `hearth export` and `hearth import`, `hearth indexes`.
///
/// The served project lives in the data directory itself; every other project in `projects/{id}` with the same
/// layout; each project's named Firestore databases in `databases/{id}`, each with a database file of its own.
package enum DataDirectoryLayout {
    /// The directory of the projects besides the served one.
    package static let projects = "projects"
    /// A project's directory of named databases.
    package static let databases = "databases"

    /// The names of the directories in `base/name`, sorted; none when it does not exist.
    package static func subdirectories(of base: String, _ name: String) -> [String] {
        let directory = (base as NSString).appendingPathComponent(name)
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { entry in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(
                atPath: (directory as NSString).appendingPathComponent(entry), isDirectory: &isDirectory)
                && isDirectory.boolValue
        }.sorted()
    }

    /// The directories, relative to `data`, of every project: `""` for the served one, then `projects/{id}`.
    package static func projectDirectories(in data: String) -> [String] {
        [""] + subdirectories(of: data, projects).map { "\(projects)/\($0)" }
    }

    /// The directories, relative to `data`, holding a database file: each project's, and each of its named
    /// databases' inside it.
    package static func databaseDirectories(in data: String) -> [String] {
        projectDirectories(in: data).flatMap { project in
            let base = project.isEmpty ? data : (data as NSString).appendingPathComponent(project)
            return [project]
                + subdirectories(of: base, databases).map {
                    project.isEmpty ? "\(databases)/\($0)" : "\(project)/\(databases)/\($0)"
                }
        }.filter { directory in
            FileManager.default.fileExists(
                atPath: ((data as NSString).appendingPathComponent(directory) as NSString)
                    .appendingPathComponent(SQLiteDocumentStore.fileName))
        }
    }
}
