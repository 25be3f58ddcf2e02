import Foundation
import HearthPostgres

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster for this test process: `initdb` and `pg_ctl start` under a temporary directory,
/// listening on a free 127.0.0.1 port, stopped and deleted when the process exits. PostgreSQL refuses to run as
/// root, so as root (CI) every server command runs as `nobody` through `runuser`, in a directory `nobody` owns.
/// One cluster is shared by the process; each test takes a fresh database from `freshDatabase()`.
enum TestCluster {
    /// Where a started cluster lives.
    struct Running: Sendable {
        let directory: String
        let port: Int
        let binaries: String
    }

    /// Why a cluster could not start.
    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Started once per process, on first use.
    static let shared: Result<Running, any Error> = Result { try start() }

    /// A conninfo for a new, empty database on the shared cluster.
    static func freshDatabase() throws -> String {
        let cluster = try shared.get()
        let admin = try PostgresConnection(conninfo: conninfo(cluster, database: "postgres"))
        defer { admin.close() }
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try admin.query("CREATE DATABASE \(try PostgresIdentifier.quote(name))")
        return conninfo(cluster, database: name)
    }

    private static func conninfo(_ cluster: Running, database: String) -> String {
        "host=127.0.0.1 port=\(cluster.port) user=postgres dbname=\(database) connect_timeout=10"
    }

    private static func start() throws -> Running {
        let binaries = try binaryDirectory()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if getuid() == 0 {
            // `nobody` must own the data directory and reach it; /tmp itself is world-traversable.
            guard chown(directory, 65534, 65534) == 0 else { throw StartFailure(description: "chown \(directory)") }
        }
        let data = directory + "/data"
        try run(binaries + "/initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"])
        let port = try freePort()
        // -F: no fsync, a throwaway cluster needs no durability; the socket directory is ours, not /run.
        let options = "-p \(port) -c listen_addresses=127.0.0.1 -k \(directory) -F"
        try run(binaries + "/pg_ctl", ["-D", data, "-o", options, "-l", directory + "/log", "-w", "start"])
        let running = Running(directory: directory, port: port, binaries: binaries)
        stopAtExit = running
        atexit(stopClusterAtExit)
        return running
    }

    /// The cluster to stop when the process exits; written once, before atexit is registered.
    nonisolated(unsafe) static var stopAtExit: Running?

    /// Runs a PostgreSQL program, as `nobody` when this process is root, and throws with its output on failure.
    static func run(_ program: String, _ arguments: [String]) throws {
        let process = Process()
        if getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "nobody", "--", program] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = arguments
        }
        // Output goes to a file, not a pipe: the server pg_ctl starts may inherit a pipe and hold it open.
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString).path
        guard FileManager.default.createFile(atPath: outputPath, contents: nil),
            let output = FileHandle(forWritingAtPath: outputPath)
        else { throw StartFailure(description: "cannot create \(outputPath)") }
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        try? output.close()
        guard process.terminationStatus == 0 else {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            throw StartFailure(description: "\(program) failed: \(text)")
        }
    }

    /// The newest `/usr/lib/postgresql/<version>/bin` that has `pg_ctl` (Debian keeps them off PATH).
    private static func binaryDirectory() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        let found = versions.compactMap(Int.init).sorted().reversed().map { "\(root)/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/pg_ctl") }
        guard let found else { throw StartFailure(description: "no PostgreSQL server under \(root)") }
        return found
    }

    /// A port the kernel just handed out on 127.0.0.1; free again once the probe socket closes.
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw StartFailure(description: "socket()") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw StartFailure(description: "bind 127.0.0.1:0") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Stops the shared cluster (immediate shutdown: nothing in it is kept) and deletes its directory.
private func stopClusterAtExit() {
    guard let cluster = TestCluster.stopAtExit else { return }
    try? TestCluster.run(cluster.binaries + "/pg_ctl", ["-D", cluster.directory + "/data", "-m", "immediate", "stop"])
    try? FileManager.default.removeItem(atPath: cluster.directory)
}
