import Foundation

/// The end-to-end suite on the PostgreSQL engine: with `HEARTH_TEST_POSTGRES` set to a running cluster's
/// `postgres://user@host:port`, every fresh data directory a test starts a server in gets a fresh database of its own
/// there, and the server runs with `--store` on it (a restart on the same directory reuses it). Unset, servers run
/// on SQLite as always.
enum PostgresTestStore {
    /// The cluster to use, if any.
    static var cluster: String? {
        ProcessInfo.processInfo.environment["HEARTH_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The `--store` URL for a server in `directory`, making its database on first use; `nil` without a cluster.
    static func url(for directory: TemporaryDirectory) throws -> String? {
        try url(forDirectory: directory.path)
    }

    /// The `--store` URL for a server whose test directory is `path` (made on first use); `nil` without a cluster.
    static func url(forDirectory path: String) throws -> String? {
        guard let cluster else { return nil }
        let marker = (path as NSString).appendingPathComponent(".test-postgres-database")
        if let name = try? String(contentsOfFile: marker, encoding: .utf8) { return cluster + "/" + name }
        let name = "e2e_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = ["psql", "-q", cluster + "/postgres", "-c", "CREATE DATABASE \(name)"]
        psql.standardOutput = FileHandle.nullDevice
        try psql.run()
        psql.waitUntilExit()
        guard psql.terminationStatus == 0 else {
            throw HarnessError("psql could not create database \(name) on \(cluster)")
        }
        try name.write(toFile: marker, atomically: true, encoding: .utf8)
        return cluster + "/" + name
    }
}
