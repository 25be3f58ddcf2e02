import Foundation
import HearthPostgres

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PostgreSQL cluster for `hearth-bench --store postgres`: `initdb` into a temporary directory, then the
/// `postgres` server itself as a child of this process on a free 127.0.0.1 port, with PostgreSQL's default
/// durability written out (`fsync=on`, `synchronous_commit=on`: a commit returns once its WAL is flushed, as durable
/// as SQLite's WAL or more). Stopped with `pg_ctl stop -m fast` and deleted by ``stop()``.
///
/// The server runs as a direct child rather than through `pg_ctl start`: `pg_ctl` daemonizes it, and the daemon
/// inherits what Foundation's `Process` waits on, so waiting for `pg_ctl` never returns (Tests/HearthPostgresTestSupport
/// met this too). As root every program runs as the unprivileged user `hearth-pg` through `runuser`, since PostgreSQL
/// refuses to run as root (created with `useradd --system` when missing).
final class BenchPostgresCluster {
    /// The 127.0.0.1 port the server listens on.
    let port: Int
    /// The server's version line, e.g. `PostgreSQL 15.8 (Debian 15.8-0+deb12u1) on x86_64…`, cut after the version.
    private(set) var version = "?"
    private let directory: String
    private let binaries: String
    private let server = Process()
    private var stopped = false

    /// Most connections the benchmark opens at once: three nodes, each with a writer, a reader per busy HTTP
    /// connection and its feed connections, plus the raw baseline's clients.
    static let maxConnections = 500

    /// Initializes and starts the cluster; throws with the programs' output when one fails.
    init() throws {
        guard let binaries = Self.binaries() else {
            throw BenchError(
                "PostgreSQL's server is not installed (no /usr/lib/postgresql/<version>/bin/postgres): "
                    + "apt-get install postgresql (scripts/packages.txt, group bench)")
        }
        self.binaries = binaries
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-pg-XXXXXX").path
        var buffer = Array(template.utf8CString)
        guard let made = mkdtemp(&buffer) else { throw BenchError("mkdtemp \(template) failed") }
        directory = String(cString: made)
        port = try Self.freePort()
        do {
            if getuid() == 0, Self.serverUser() == nil {
                _ = try ChildProcess.capture(
                    "/usr/sbin/useradd",
                    [
                        "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
                        Self.userName,
                    ], timeout: .seconds(30), requireSuccess: false)
            }
            if let user = Self.serverUser() {
                guard chown(directory, user.uid, user.gid) == 0 else { throw BenchError("chown \(directory) failed") }
            }
            let data = directory + "/data"
            log("PostgreSQL: initdb in \(data)")
            let (initdb, arguments) = Self.asServerUser(
                binaries + "/initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8"])
            _ = try ChildProcess.capture(initdb, arguments, timeout: .seconds(120))
            try start(data: data)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// A `postgres://` URL of `database`, as `hearth serve --store` takes it.
    func url(database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }

    /// A libpq conninfo of `database`.
    func conninfo(database: String = "postgres") -> String {
        "host=127.0.0.1 port=\(port) user=postgres dbname=\(database) connect_timeout=10"
    }

    /// Creates an empty database called `name` (letters, digits and `_` only).
    func createDatabase(_ name: String) throws {
        let admin = try PostgresConnection(conninfo: conninfo())
        defer { admin.close() }
        try admin.query("CREATE DATABASE \(try PostgresIdentifier.quote(name))")
    }

    /// Stops the server (`pg_ctl stop -m fast`, killed if it is still there 60 s later) and deletes the cluster.
    func stop() {
        guard !stopped else { return }
        stopped = true
        if server.isRunning {
            log("PostgreSQL: stopping")
            let (pgctl, arguments) = Self.asServerUser(
                binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "-t", "60", "stop"])
            _ = try? ChildProcess.capture(pgctl, arguments, timeout: .seconds(90), requireSuccess: false)
            if !ChildProcess.wait(for: server, timeout: .seconds(30)) {
                log("PostgreSQL did not stop within 30 s of pg_ctl stop; killed it")
            }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func start(data: String) throws {
        let logURL = URL(fileURLWithPath: directory + "/server.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: logURL)
        let (postgres, arguments) = Self.asServerUser(
            binaries + "/postgres",
            [
                "-D", data, "-p", String(port), "-k", directory, "-c", "listen_addresses=127.0.0.1",
                "-c", "max_connections=\(Self.maxConnections)", "-c", "fsync=on", "-c", "synchronous_commit=on",
            ])
        server.executableURL = URL(fileURLWithPath: postgres)
        server.arguments = arguments
        server.standardInput = FileHandle.nullDevice
        server.standardOutput = output
        server.standardError = output
        log("PostgreSQL: starting on 127.0.0.1:\(port)")
        try server.run()
        try watch(data: data)
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            if let connection = try? PostgresConnection(conninfo: conninfo()) {
                defer { connection.close() }
                let text = (try? connection.query("SELECT version()"))?.rows.first.flatMap { try? $0.string(0) }
                version = text.map { String($0.prefix { $0 != "," }) } ?? "?"
                return
            }
            guard server.isRunning, ContinuousClock.now < deadline else {
                let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
                throw BenchError("PostgreSQL did not accept connections within 60 s\n\(text.suffix(2000))")
            }
            usleep(100_000)
        }
    }

    /// Starts a watchdog shell that outlives this process: once it is gone — killed, or crashed before ``stop()`` —
    /// the watchdog stops the server and deletes the cluster. After a normal ``stop()`` it finds nothing to do.
    private func watch(data: String) throws {
        let (pgctl, arguments) = Self.asServerUser(binaries + "/pg_ctl", ["-D", data, "-m", "fast", "stop"])
        let stopCommand = ([pgctl] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let watchdog = Process()
        watchdog.executableURL = URL(fileURLWithPath: "/bin/sh")
        watchdog.arguments = [
            "-c",
            "while [ -d /proc/\(getpid()) ]; do sleep 1; done; "
                + "[ -f '\(data)/postmaster.pid' ] && \(stopCommand) >/dev/null 2>&1; rm -rf '\(directory)'",
        ]
        watchdog.standardInput = FileHandle.nullDevice
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try watchdog.run()
    }

    /// The newest `/usr/lib/postgresql/<version>/bin` with `postgres`, `initdb` and `pg_ctl` (Debian keeps them off
    /// PATH).
    private static func binaries() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).sorted().reversed().map { "\(root)/\($0)/bin" }
            .first { directory in
                ["postgres", "initdb", "pg_ctl"].allSatisfy {
                    FileManager.default.isExecutableFile(atPath: directory + "/" + $0)
                }
            }
    }

    private static let userName = "hearth-pg"

    /// `hearth-pg` when this process is root (PostgreSQL will not run as root), else `nil`: run as ourselves.
    private static func serverUser() -> (uid: uid_t, gid: gid_t)? {
        guard getuid() == 0, let entry = getpwnam(userName) else { return nil }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    /// The executable and arguments that run `program` as the server's user: through `runuser -u hearth-pg --`
    /// as root, as is otherwise.
    private static func asServerUser(_ program: String, _ arguments: [String]) -> (String, [String]) {
        guard serverUser() != nil else { return (program, arguments) }
        return ("/usr/sbin/runuser", ["-u", userName, "--", program] + arguments)
    }

    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("socket() failed") }
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
        guard bound else { throw BenchError("bind 127.0.0.1:0 failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
