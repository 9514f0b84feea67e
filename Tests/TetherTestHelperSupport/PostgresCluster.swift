package import Foundation
import Synchronization
package import TetherTesting

/// A throwaway PostgreSQL server for one test: its own cluster in a temporary folder, on a free
/// port, with a superuser `tether` whose random password only this process knows. Tests talk to
/// no server they did not start.
///
/// ```swift
/// let cluster = try await PostgresCluster.start()
/// #expect(try await cluster.psql("select 1") == "1")
/// try await cluster.stop()
/// ```
///
/// A cluster not stopped is stopped (immediately) when it is deinitialized or when the test
/// process exits, so no server outlives `swift test`.
package final class PostgresCluster: Sendable {
  /// The address the server listens on.
  package let host: String
  /// The TCP port the server listens on; the same after `restart()`.
  package let port: Int
  /// The superuser's name.
  package let user = "tether"
  /// The superuser's password, random for each cluster.
  package let password: String
  /// The database every cluster has.
  package let database = "postgres"
  /// A file holding only the password, mode 0600, owned by the user running the tests.
  package let passwordFile: URL
  /// The cluster's data directory (owned by `postgres` when the tests run as root).
  package let dataDirectory: URL
  /// The temporary folder holding everything of this cluster; `stop()` removes it.
  package let folder: URL
  /// The namespace the server runs in, or nil for this process's.
  package let netns: String?
  /// The binaries and how to run them as the server's user.
  let binaries: PostgresBinaries
  /// Whether the server is running, and whether the cluster was stopped for good.
  private let state = Mutex<(running: Bool, removed: Bool)>((true, false))

  /// `postgres://tether@HOST:PORT/postgres`; the password is in `password`, not in the URL.
  package var url: String {
    let bracketed = host.contains(":") ? "[\(host)]" : host
    return "postgres://\(user)@\(bracketed):\(port)/\(database)"
  }

  /// Whether the server is running (started and neither stopped nor killed since).
  package var isRunning: Bool { state.withLock { $0.running } }

  /// Why no cluster can be started here, or nil when one can: PostgreSQL's server binaries are
  /// installed (Debian's `postgresql` package) and, when the tests run as root, there is a
  /// `postgres` user to run them as. Tests skip with this reason, never silently.
  package static var unavailableReason: String? { PostgresBinaries.unavailableReason }

  init(
    host: String, port: Int, password: String, folder: URL, netns: String?,
    binaries: PostgresBinaries
  ) {
    self.host = host
    self.port = port
    self.password = password
    self.folder = folder
    self.passwordFile = folder.appending(path: "password")
    self.dataDirectory = folder.appending(path: "data")
    self.netns = netns
    self.binaries = binaries
  }

  deinit {
    // A test that dropped its cluster without stopping it: stop the server now rather than at
    // exit, so a long run does not pile servers up.
    ExitCleanup.runNow(folder.path)
  }

  /// Makes a cluster in a new folder inside `folder` (the temporary directory by default) and
  /// starts its server listening on `listenAddress`, inside the network namespace `netns` when
  /// given (whose address `listenAddress` then is).
  package static func start(
    listenAddress: String = "127.0.0.1", netns: String? = nil, in folder: URL? = nil
  ) async throws -> PostgresCluster {
    if let reason = unavailableReason { throw FixtureError(reason) }
    let binaries = try PostgresBinaries.newest()
    let parent = folder ?? FileManager.default.temporaryDirectory
    let root = parent.appending(path: "tether-postgres-\(SystemCommands.randomTag())")
    let password =
      SystemCommands.randomTag() + SystemCommands.randomTag()
      + SystemCommands.randomTag() + SystemCommands.randomTag()
    try binaries.initialize(in: root, password: password)
    // From here on the folder, and soon a server, exist: if this process exits before the
    // cluster is stopped, both go.
    ExitCleanup.add(root.path, binaries.exitCommand(folder: root))
    do {
      try await binaries.initdb(in: root)
      // A port found free may be taken before the server binds it: try another.
      var attempt = 1
      while true {
        let port = freePort(on: listenAddress)
        do {
          try await binaries.startServer(
            folder: root, host: listenAddress, port: port, netns: netns)
          return PostgresCluster(
            host: listenAddress, port: port, password: password, folder: root, netns: netns,
            binaries: binaries)
        } catch let error as FixtureError where attempt < 5 && error.description.contains("in use")
        {
          attempt += 1
        }
      }
    } catch {
      ExitCleanup.remove(root.path)
      try? FileManager.default.removeItem(at: root)
      throw error
    }
  }

  /// Stops the server (fast shutdown: sessions are ended, the data is checkpointed) and removes
  /// the cluster's folder. Stopping a stopped cluster does nothing.
  package func stop() async throws {
    if isRunning { try await stopServer(mode: "fast") }
    let remove = state.withLock { state in
      defer { state.removed = true }
      return !state.removed
    }
    if remove {
      ExitCleanup.remove(folder.path)
      try? FileManager.default.removeItem(at: folder)
    }
  }

  /// Stops the server the way a crash would (`pg_ctl -m immediate`: no checkpoint, recovery at
  /// the next start), keeping the data; `restart()` starts it again.
  package func kill() async throws {
    if isRunning { try await stopServer(mode: "immediate") }
  }

  /// Stops the server if it runs and starts it again on the same port and data directory.
  package func restart() async throws {
    if isRunning { try await stopServer(mode: "fast") }
    try await binaries.startServer(folder: folder, host: host, port: port, netns: netns)
    state.withLock { $0.running = true }
  }

  /// Runs `sql` with `psql` as the superuser (in the network namespace `netns` when given) and
  /// returns what it printed, unaligned and without headers, trailing newlines trimmed; throws
  /// with `psql`'s standard error when it fails.
  package func psql(_ sql: String, netns: String? = nil) async throws -> String {
    let result = try await psqlResult(sql, netns: netns)
    guard result.status == 0 else {
      throw FixtureError("psql failed (\(result.status)): \(result.errors)")
    }
    var output = Substring(result.output)
    while output.last?.isNewline == true { output.removeLast() }
    return String(output)
  }

  /// Runs `sql` with `psql` (`-X -q -A -t -v ON_ERROR_STOP=1`) and returns how it ended, failed
  /// or not: for tests that expect a failure. `password` replaces the cluster's; the connection
  /// attempt gives up after `connectTimeout` seconds.
  package func psqlResult(
    _ sql: String, netns: String? = nil, password: String? = nil, connectTimeout: Int = 10
  ) async throws -> ChildResult {
    let connection =
      "host=\(host) port=\(port) user=\(user) dbname=\(database) connect_timeout=\(connectTimeout)"
    let psqlArguments = [
      binaries.bin + "/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", connection,
      "-c", sql,
    ]
    let command =
      (netns.map { [SystemCommands.ip ?? "ip", "netns", "exec", $0] } ?? []) + psqlArguments
    // PGPASSFILE: a ~/.pgpass of whoever runs the tests must not answer for us.
    return try await runChild(
      command[0], Array(command.dropFirst()),
      environment: ["PGPASSWORD": password ?? self.password, "PGPASSFILE": "/dev/null"],
      timeout: .seconds(connectTimeout + 60))
  }
}

extension PostgresCluster {
  /// Stops the server with `pg_ctl -w stop` in `mode` (fast or immediate).
  private func stopServer(mode: String) async throws {
    try await binaries.stopServer(folder: folder, mode: mode)
    state.withLock { $0.running = false }
  }
}
