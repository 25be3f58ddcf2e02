internal import CHearthSpawn
import Foundation
import HearthPostgres
public import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Throwaway PostgreSQL clusters for tests: `initdb` and `pg_ctl start` under a temporary directory, listening on a
/// free 127.0.0.1 port, stopped (`pg_ctl stop -m fast`) and deleted when done — by `stop()`, at the process's exit,
/// or, should the process die without exiting, by a watchdog that outlives it.
///
/// PostgreSQL refuses to run as root, so as root (CI) every server program runs as the system user `hearth-pg`
/// (created when missing) through `runuser`, in a directory that user owns.
///
/// Programs are started with `posix_spawn`, stdin `/dev/null`, output to a log file and every other descriptor
/// closed, and awaited with `waitpid` — not with Foundation's `Process`. `Process` learns that a child ended when
/// a socket the child inherits reaches end-of-file; the server `pg_ctl start` leaves running inherits that socket
/// too and holds it open, so `waitUntilExit()` never returned and the tests hung at the cluster's start.
public final class TestCluster: Sendable {
    /// Why a cluster could not start or stop.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with the program's output.
        public let description: String
    }

    /// The newest `/usr/lib/postgresql/<version>/bin` that has `pg_ctl` and `initdb` (Debian keeps them off PATH),
    /// or `nil` when PostgreSQL's server is not installed.
    public static let binaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap(Int.init).sorted().reversed().map { "\(root)/\($0)/bin" }
            .first { directory in
                ["pg_ctl", "initdb"].allSatisfy { FileManager.default.isExecutableFile(atPath: directory + "/" + $0) }
            }
    }()

    /// The trait of every suite that needs a cluster: it runs wherever PostgreSQL's server is installed, and is
    /// skipped, saying why, only where it is not (a cluster that fails to start fails the tests).
    public static let requirement: ConditionTrait = .enabled(
        if: binaries != nil,
        "PostgreSQL's server is not installed (no /usr/lib/postgresql/<version>/bin/pg_ctl): install Debian's postgresql package (scripts/packages.txt)"
    )

    /// The cluster the process's tests share, started on first use and stopped at exit. Tests take a fresh
    /// database each (`freshDatabase()`); a test that restarts or stops its server starts a cluster of its own.
    public static func shared() throws -> TestCluster { try sharedCluster.get() }

    /// A conninfo for a new, empty database on the shared cluster.
    public static func freshDatabase() throws -> String { try shared().createDatabase() }

    private static let sharedCluster: Result<TestCluster, any Error> = Result {
        let cluster = try TestCluster()
        atexit(stopSharedClusterAtExit)
        return cluster
    }

    /// Where the cluster lives: `data` (the cluster), `log` (the server's log), the socket.
    public let directory: String
    /// The 127.0.0.1 port it listens on.
    public let port: Int
    private let binaries: String
    private var data: String { directory + "/data" }

    /// Initializes and starts a cluster of its own; `stop()` it when done.
    /// - Throws: ``Failure`` when PostgreSQL is not installed or a program fails (its output included).
    public init() throws {
        guard let binaries = Self.binaries else { throw Failure(description: "PostgreSQL's server is not installed") }
        self.binaries = binaries
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-pg-XXXXXX").path
        var buffer = Array(template.utf8CString)
        guard let made = mkdtemp(&buffer) else { throw Failure(description: "mkdtemp \(template)") }
        directory = String(cString: made)
        if let user = try Self.serverUser() {
            // The server's user must own the cluster's directory; the temporary directory is world-traversable.
            guard chown(directory, user.uid, user.gid) == 0 else { throw Failure(description: "chown \(directory)") }
        }
        port = try Self.freePort()
        do {
            try Self.watch(directory: directory, binaries: binaries)
            try Self.run(
                binaries + "/initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"],
                log: directory + "/initdb.log")
            try start()
        } catch {
            stop()
            throw error
        }
    }

    /// A libpq conninfo for `database` on this cluster.
    public func conninfo(database: String = "postgres") -> String {
        "host=127.0.0.1 port=\(port) user=postgres dbname=\(database) connect_timeout=10"
    }

    /// Creates a database with a unique name and returns its conninfo.
    public func createDatabase() throws -> String {
        let admin = try PostgresConnection(conninfo: conninfo())
        defer { admin.close() }
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try admin.query("CREATE DATABASE \(try PostgresIdentifier.quote(name))")
        return conninfo(database: name)
    }

    /// Creates a database with a unique name and returns its `postgres://` URL, as `hearth serve --store` takes it.
    public func createDatabaseURL() throws -> String {
        let conninfo = try createDatabase()
        let name = conninfo.split(separator: " ").first { $0.hasPrefix("dbname=") }?.dropFirst("dbname=".count) ?? ""
        return "postgres://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// Restarts the server (`pg_ctl restart -m fast`): every open connection is cut, the data stays.
    public func restart() throws {
        try pgctl(["-m", "fast", "-o", serverOptions, "restart"])
    }

    /// Stops the server (`pg_ctl stop -m fast`), keeping the cluster, so a test can see what clients get while the
    /// database is down; ``startServer()`` starts it again.
    public func stopServer() throws {
        try pgctl(["-m", "fast", "stop"])
    }

    /// Starts the server ``stopServer()`` stopped, on the same port, with the same data.
    public func startServer() throws {
        try start()
    }

    /// Stops the server (`pg_ctl stop -m fast`) and deletes the cluster. Safe to call twice.
    public func stop() {
        if FileManager.default.fileExists(atPath: data + "/postmaster.pid") {
            try? pgctl(["-m", "fast", "stop"])
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func start() throws {
        try pgctl(["-o", serverOptions, "start"])
    }

    /// `-F`: no fsync, a throwaway cluster needs no durability; the socket lives in the cluster's directory. Tests
    /// run side by side, each engine holding a writer, its readers and its two feed connections (listen, notify),
    /// and each of its two followers may hold a reader of its own while it waits for a final point: 400 was once
    /// too few for a run mixing every PostgreSQL suite ("too many clients already").
    private var serverOptions: String {
        "-p \(port) -c listen_addresses=127.0.0.1 -c max_connections=1000 -k \(directory) -F"
    }

    private func pgctl(_ arguments: [String]) throws {
        try Self.run(
            binaries + "/pg_ctl", ["-D", data, "-l", directory + "/log", "-w", "-t", "60"] + arguments,
            log: directory + "/pg_ctl.log")
    }

    // MARK: - Programs

    private struct User {
        let name: String
        let uid: uid_t
        let gid: gid_t
    }

    private static let userName = "hearth-pg"

    /// The unprivileged user to run the server as: `nil` when this process is not root, `hearth-pg` (a system user
    /// without a home or a shell, created on first use) when it is.
    private static func serverUser() throws -> User? {
        guard getuid() == 0 else { return nil }
        if let user = lookUp(userName) { return user }
        let status = try spawnAndWait(
            "/usr/sbin/useradd",
            ["--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", userName],
            log: "/dev/null")
        // Another test process may have created it meanwhile (useradd then fails with 9).
        guard let user = lookUp(userName) else {
            throw Failure(description: "useradd \(userName) failed with status \(status)")
        }
        return user
    }

    private static func lookUp(_ name: String) -> User? {
        guard let entry = getpwnam(name) else { return nil }
        return User(name: name, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }

    /// Runs a PostgreSQL program to its end, as the server's user; throws with its output when it fails.
    private static func run(_ program: String, _ arguments: [String], log: String) throws {
        let (executable, argv) = try asServerUser(program, arguments)
        let status = try spawnAndWait(executable, argv, log: log)
        guard status == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw Failure(
                description: "\(program) \(arguments.joined(separator: " ")) exited with \(status): \(output)")
        }
    }

    private static func asServerUser(_ program: String, _ arguments: [String]) throws -> (String, [String]) {
        guard let user = try serverUser() else { return (program, arguments) }
        return ("/usr/sbin/runuser", ["-u", user.name, "--", program] + arguments)
    }

    /// Starts a watchdog that outlives this process: once this process is gone, however it ended, it stops the
    /// cluster and deletes its directory. `stop()` and the exit handler usually did that already.
    private static func watch(directory: String, binaries: String) throws {
        let script = """
            while [ -d /proc/$1 ]; do sleep 1; done
            "$2/pg_ctl" -D "$3/data" -m fast stop
            rm -rf "$3"
            """
        let (executable, argv) = try asServerUser(
            "/bin/sh", ["-c", script, "hearth-pg-watchdog", String(getpid()), binaries, directory])
        // In a process group of its own, so that a runner's timeout, which signals the test process's group, leaves
        // it to clean up.
        _ = try spawn(executable, argv, log: "/dev/null", ownProcessGroup: true)
    }

    private static func spawnAndWait(_ executable: String, _ arguments: [String], log: String) throws -> Int32 {
        let pid = try spawn(executable, arguments, log: log)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else { throw Failure(description: "waitpid \(executable): errno \(errno)") }
        }
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// posix_spawn with stdin `/dev/null`, stdout and stderr appended to `log`, and every other descriptor closed
    /// in the child (see the type's comment).
    private static func spawn(
        _ executable: String, _ arguments: [String], log: String, ownProcessGroup: Bool = false
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let closing = hearth_spawn_addclosefrom(&actions, 3)
        guard closing == 0 else { throw Failure(description: "posix_spawn cannot close descriptors: error \(closing)") }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if ownProcessGroup {
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else { throw Failure(description: "posix_spawn \(executable): error \(result)") }
        return pid
    }

    /// A port the kernel just handed out on 127.0.0.1; free again once the probe socket closes.
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket()") }
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
        guard bound else { throw Failure(description: "bind 127.0.0.1:0") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Stops the shared cluster when the process exits, failed tests or not.
private func stopSharedClusterAtExit() {
    if let cluster = try? TestCluster.shared() { cluster.stop() }
}
