import Foundation
import LocalCloud
import LocalCloudPostgres
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A private PostgreSQL cluster for tests: `initdb` and `pg_ctl` in a temporary directory on a
/// free loopback port, started once per test process and stopped when it exits.
///
/// ```swift
/// let url = try PostgresCluster.shared().makeDatabase()   // a fresh, empty database
/// ```
///
/// PostgreSQL refuses to run as root, so as root the server runs as the `postgres` OS user
/// (`runuser -u postgres --`). TCP connections need the password (scram-sha-256), so tests
/// also prove that a wrong one is refused.
package final class PostgresCluster: Sendable {
    package let directory: URL
    package let port: Int
    package let superuser = "localcloud_test"
    package let password: String
    private let binDirectory: URL
    private let runsAsPostgresUser: Bool

    /// Set `LOCALCLOUD_SKIP_POSTGRES=1` to skip PostgreSQL tests on a machine without it;
    /// otherwise a missing PostgreSQL fails them with ``ClusterError``.
    package static var isSkipped: Bool {
        ProcessInfo.processInfo.environment["LOCALCLOUD_SKIP_POSTGRES"] == "1"
    }

    private static let started = Mutex<Task<PostgresCluster, any Error>?>(nil)
    /// The shared cluster once started, for the exit handler (which cannot await the task).
    private static let running = Mutex<PostgresCluster?>(nil)

    /// The process's cluster, started on first use.
    ///
    /// Every call that runs a PostgreSQL program (`initdb`, `pg_ctl`, `psql`) waits for it on a
    /// thread of its own (``BlockingThread``): a test waiting in `waitpid` on the cooperative pool
    /// would hold one of its two threads for seconds, and stall every other test's server.
    package static func shared() async throws -> PostgresCluster {
        let task = started.withLock { started in
            if let started { return started }
            let task = Task { () async throws -> PostgresCluster in
                let cluster = try await BlockingThread.run("initdb") { try PostgresCluster() }
                running.withLock { $0 = cluster }
                atexit { PostgresCluster.stopShared() }
                return cluster
            }
            started = task
            return task
        }
        do {
            return try await task.value
        } catch {
            throw error as? ClusterError ?? ClusterError(message: "\(error)")
        }
    }

    /// A cluster of its own, for a test that stops or restarts the server; call ``stop()`` when done.
    package static func startPrivate() async throws -> PostgresCluster {
        try await BlockingThread.run("initdb") { try PostgresCluster() }
    }

    private static func stopShared() {
        running.withLock { $0 }?.stopNow()
    }

    /// A failure to find or start PostgreSQL, with what to do about it.
    package struct ClusterError: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }
    }

    private init() throws {
        guard let bin = Self.findBinDirectory() else {
            throw ClusterError(message: """
                PostgreSQL is not installed (no initdb/pg_ctl in /usr/lib/postgresql/*/bin or on PATH). \
                Install postgresql and postgresql-contrib (apt-get install postgresql postgresql-contrib), \
                or set LOCALCLOUD_SKIP_POSTGRES=1 to skip the PostgreSQL tests.
                """)
        }
        binDirectory = bin
        runsAsPostgresUser = geteuid() == 0
        password = UUID().uuidString
        directory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("localcloud-pg-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let passwordFile = directory.appendingPathComponent("pwfile")
        try Data(password.utf8).write(to: passwordFile)
        let asPostgres = runsAsPostgresUser
        let directory = directory
        func run(_ executable: String, _ arguments: [String]) throws {
            try Self.run(executable, arguments, asPostgres: asPostgres, directory: directory)
        }
        if asPostgres { try Self.run("/bin/chown", ["-R", "postgres:postgres", directory.path], asPostgres: false, directory: directory) }
        let data = directory.appendingPathComponent("data").path
        try run(bin.appendingPathComponent("initdb").path,
                ["-D", data, "-U", superuser, "--pwfile", passwordFile.path, "-E", "UTF8", "--locale=C",
                 "--auth-local=trust", "--auth-host=scram-sha-256"])
        var lastError: ClusterError?
        for _ in 0..<5 {
            let candidate = try Self.freePort()
            do {
                try run(bin.appendingPathComponent("pg_ctl").path,
                        ["-D", data, "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "60",
                         "-o", "-p \(candidate) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
                         "start"])
                port = candidate
                startWatchdog()
                return
            } catch let error as ClusterError {
                lastError = error  // the port was taken between the probe and the start: try another
            }
        }
        throw lastError ?? ClusterError(message: "PostgreSQL did not start")
    }

    /// A URL with the password, for ``PostgresURL``.
    package func url(database: String, user: String? = nil, password: String? = nil) -> PostgresURL {
        PostgresURL(user: user ?? superuser, password: password ?? self.password, host: "127.0.0.1", port: port, database: database)
    }

    /// A new empty database, for one test.
    package func makeDatabase() async throws -> PostgresURL {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await psql("CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Runs SQL as the superuser over the Unix socket (trusted), in `database`.
    package func psql(_ sql: String, database: String = "postgres") async throws {
        let arguments = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", directory.path, "-p", "\(port)", "-U", superuser, "-d", database, "-c", sql]
        try await BlockingThread.run("psql") { [self] in try run(binDirectory.appendingPathComponent("psql").path, arguments) }
    }

    /// Stops and starts the server (the data stays), as an operator's restart would; or only one half.
    package func restart(mode: String = "fast", stopOnly: Bool = false, startOnly: Bool = false) async throws {
        try await BlockingThread.run("pg_ctl") { [self] in
            if !startOnly { try pgctl(["-m", mode, "-w", "-t", "60", "stop"]) }
            if !stopOnly {
                try pgctl(["-w", "-t", "60", "-l", directory.appendingPathComponent("server.log").path,
                           "-o", "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", "start"])
            }
        }
    }

    package func stop() async {
        await BlockingThread.run("pg_ctl") { [self] in stopNow() }
    }

    private func stopNow() {
        try? pgctl(["-m", "immediate", "-w", "-t", "30", "stop"])
        try? FileManager.default.removeItem(at: directory)
    }

    private func pgctl(_ arguments: [String]) throws {
        try run(binDirectory.appendingPathComponent("pg_ctl").path, ["-D", directory.appendingPathComponent("data").path] + arguments)
    }

    /// Stops the cluster if this process dies without running its exit handlers (a crash, SIGKILL).
    private func startWatchdog() {
        let pgctl = binDirectory.appendingPathComponent("pg_ctl").path
        let script = """
            while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done
            \(runsAsPostgresUser ? "runuser -u postgres -- " : "")\(pgctl) -D '\(directory.path)/data' -m immediate stop >/dev/null 2>&1
            rm -rf '\(directory.path)'
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }

    private func run(_ executable: String, _ arguments: [String]) throws {
        try Self.run(executable, arguments, asPostgres: runsAsPostgresUser, directory: directory)
    }

    /// Runs a command (as the `postgres` user when `asPostgres`) and fails with its output and the server log.
    ///
    /// posix_spawn and waitpid, not Foundation's `Process`: its `waitUntilExit` did not return for
    /// `runuser -- pg_ctl start` (the child was never reaped). Output goes to a file, not a pipe:
    /// the server pg_ctl starts inherits the descriptors and would hold a pipe open while it runs.
    private static func run(_ executable: String, _ arguments: [String], asPostgres: Bool, directory: URL) throws {
        let argv = asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] + arguments : [executable] + arguments
        let outputPath = NSTemporaryDirectory() + "/localcloud-pg-out-\(UUID().uuidString)"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of this process: `pg_ctl start` leaves a server running that would keep
        // every descriptor it inherited, among them the listening sockets of the test servers
        // running now. Such a socket outlives its server's stop: a restart on its port met
        // "Address already in use" and a request to a stopped server hung unanswered.
        for descriptor in Self.openDescriptors() where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        var pid: pid_t = 0
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ)
        guard spawned == 0 else { throw ClusterError(message: "Cannot run \(argv[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let log = (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
            throw ClusterError(message: "\(argv.joined(separator: " ")) failed (status \(status)): \(text)\n\(log.suffix(2000))")
        }
    }

    /// This process's open descriptors (a closed one is skipped by posix_spawn's close action).
    private static func openDescriptors() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap(Int32.init)
    }

    private static func findBinDirectory() -> URL? {
        let fileManager = FileManager.default
        let versions = ((try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? [])
            .compactMap(Int.init).sorted(by: >)
        let candidates = versions.map { "/usr/lib/postgresql/\($0)/bin" }
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return candidates.first { fileManager.isExecutableFile(atPath: $0 + "/initdb") && fileManager.isExecutableFile(atPath: $0 + "/pg_ctl") }
            .map { URL(fileURLWithPath: $0, isDirectory: true) }
    }

    /// A port nothing listens on now (the kernel's pick for port 0).
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClusterError(message: "socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        guard bound == 0 else { throw ClusterError(message: "Cannot find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
