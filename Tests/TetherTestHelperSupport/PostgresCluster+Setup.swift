import Foundation
import TetherTesting

/// PostgreSQL's binaries in one installed version's `bin` folder, and how a cluster's folder,
/// data and server are made and run with them.
///
/// A cluster's folder holds `data` (the data directory), `sockets` (the server's Unix socket),
/// `log/server.log` and `password`; when the tests run as root everything but `password` is the
/// `postgres` user's, since `initdb` and `postgres` refuse to run as root.
struct PostgresBinaries: Sendable {
  /// The `bin` folder, as `/usr/lib/postgresql/15/bin`.
  let bin: String
  /// Whether the server's tools run as the `postgres` user (when this process is root).
  let asPostgres: Bool

  /// Where Debian (and Ubuntu) install each version's server binaries.
  static let installRoot = "/usr/lib/postgresql"

  /// The newest installed version's binaries.
  static func newest() throws -> PostgresBinaries {
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: installRoot)) ?? []
    let complete = versions.compactMap { Int($0) }.sorted(by: >).map { "\(installRoot)/\($0)/bin" }
      .first { bin in
        ["initdb", "pg_ctl", "postgres", "psql"].allSatisfy {
          FileManager.default.isExecutableFile(atPath: "\(bin)/\($0)")
        }
      }
    guard let bin = complete else {
      throw FixtureError(
        "PostgreSQL is not installed: no \(installRoot)/<version>/bin with initdb, pg_ctl, "
          + "postgres and psql (install Debian's postgresql package: make test-deps)")
    }
    return PostgresBinaries(bin: bin, asPostgres: SystemCommands.isRoot)
  }

  /// Why no cluster can be started, or nil; worked out once.
  static let unavailableReason: String? = {
    do { _ = try newest() } catch { return "\(error)" }
    guard SystemCommands.isRoot else { return nil }
    if getpwnam("postgres") == nil {
      return "the tests run as root, and initdb refuses root, but there is no postgres user"
    }
    if SystemCommands.runuser == nil {
      return "the tests run as root, and initdb refuses root, but there is no runuser"
    }
    return nil
  }()

  /// The command line running `tool` of `bin` (as `postgres` when root, in namespace `netns`
  /// when given); with `detaching`, every descriptor but the standard three is closed first.
  ///
  /// `pg_ctl start` leaves the server running, and a server holding a descriptor this process's
  /// children inherit (the socket by which Foundation learns that its child ended) keeps
  /// Foundation from ever seeing `pg_ctl` end: the first test run waited forever.
  func commandLine(
    _ tool: String, _ arguments: [String], netns: String?, detaching: Bool = false
  ) -> [String] {
    let namespace = netns.map { [SystemCommands.ip ?? "ip", "netns", "exec", $0] } ?? []
    let user = asPostgres ? [SystemCommands.runuser ?? "runuser", "-u", "postgres", "--"] : []
    // Bash, not sh: dash closes only descriptors 0 to 9 with `exec N>&-`.
    let closing =
      #"for fd in /proc/$$/fd/*; do fd=${fd##*/}; "#
      + #"[ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done; exec "$@""#
    let wrapper = detaching ? ["/bin/bash", "-c", closing, "bash"] : []
    return namespace + user + wrapper + ["\(bin)/\(tool)"] + arguments
  }

  /// Runs `tool` of `bin` to completion (see `commandLine` for `detaching`).
  func run(
    _ tool: String, _ arguments: [String], netns: String?, detaching: Bool = false
  ) async throws -> ChildResult {
    let command = commandLine(tool, arguments, netns: netns, detaching: detaching)
    // A locale the server's user may not have installed must not fail initdb or the server.
    return try await runChild(
      command[0], Array(command.dropFirst()), environment: ["LC_ALL": "C"],
      timeout: .seconds(120))
  }

  /// Makes the cluster's folder and the files `initdb` reads, owned so that the server's user
  /// can use them.
  func initialize(in folder: URL, password: String) throws {
    let files = FileManager.default
    try files.createDirectory(at: folder, withIntermediateDirectories: true)
    // Traversable by the server's user, writable only by us.
    try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
    for name in ["data", "sockets", "log"] {
      let url = folder.appending(path: name)
      try files.createDirectory(at: url, withIntermediateDirectories: false)
      try giveToServerUser(url)
    }
    // The password for initdb, readable by the server's user only; removed once initdb ran.
    let pwfile = folder.appending(path: "pwfile")
    guard
      files.createFile(
        atPath: pwfile.path, contents: Data((password + "\n").utf8),
        attributes: [.posixPermissions: 0o600])
    else { throw FixtureError("could not write \(pwfile.path)") }
    try giveToServerUser(pwfile)
    // The password for the tests (and for the strategy under test), readable by us only.
    let passwordFile = folder.appending(path: "password")
    guard
      files.createFile(
        atPath: passwordFile.path, contents: Data(password.utf8),
        attributes: [.posixPermissions: 0o600])
    else { throw FixtureError("could not write \(passwordFile.path)") }
  }

  /// Makes the cluster in `folder/data`: superuser `tether` with the password in `pwfile`,
  /// SCRAM authentication for every connection from any address, UTF-8.
  func initdb(in folder: URL) async throws {
    let pwfile = folder.appending(path: "pwfile")
    defer { try? FileManager.default.removeItem(at: pwfile) }
    let result = try await run(
      "initdb",
      [
        "-D", folder.appending(path: "data").path, "--auth=scram-sha-256", "--username=tether",
        "--pwfile=\(pwfile.path)", "--encoding=UTF8", "--locale=C", "--no-sync",
      ], netns: nil)
    guard result.status == 0 else {
      throw FixtureError("initdb failed (\(result.status)): \(result.output)\(result.errors)")
    }
    // initdb lets in only loopback clients; a server on another "host" (a namespace) must let
    // in any address, still only with the password. Appended as whoever we are: the file
    // keeps its owner.
    let hba = try FileHandle(forWritingTo: folder.appending(path: "data/pg_hba.conf"))
    defer { try? hba.close() }
    try hba.seekToEnd()
    try hba.write(
      contentsOf: Data(
        "host all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n".utf8))
  }

  /// Starts the server of the cluster in `folder` on `host`:`port` with `pg_ctl -w start`,
  /// which returns once it accepts connections. Throws with the server's log when it does not
  /// start (containing "in use" when the port was taken).
  func startServer(folder: URL, host: String, port: Int, netns: String?) async throws {
    let options = [
      "-c listen_addresses=\(host)", "-c port=\(port)",
      "-c unix_socket_directories=\(folder.appending(path: "sockets").path)",
      "-c fsync=off", "-c max_connections=200",
    ].joined(separator: " ")
    let data = folder.appending(path: "data").path
    let log = folder.appending(path: "log/server.log")
    let result = try await run(
      "pg_ctl", ["-D", data, "-l", log.path, "-w", "-t", "60", "-o", options, "start"],
      netns: netns, detaching: true)
    guard result.status == 0 else {
      // pg_ctl says only that the server did not start; why is in the server's log. A server
      // that started too late for pg_ctl's wait must not run on.
      let serverLog = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      _ = try? await run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"], netns: nil)
      throw FixtureError(
        "pg_ctl start on \(host):\(port) failed: \(result.output)\(result.errors)\(serverLog)")
    }
  }

  /// Stops the server of the cluster in `folder` with `pg_ctl -w stop` in `mode` (fast or
  /// immediate). Signals need no namespace: pg_ctl finds the server by its pid file.
  func stopServer(folder: URL, mode: String) async throws {
    let data = folder.appending(path: "data").path
    let result = try await run(
      "pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"], netns: nil)
    guard result.status == 0 else {
      throw FixtureError("pg_ctl stop failed: \(result.output)\(result.errors)")
    }
  }

  /// A `/bin/sh` command that stops the cluster in `folder` immediately if it runs and removes
  /// the folder: for `ExitCleanup`.
  func exitCommand(folder: URL) -> String {
    let stop = commandLine(
      "pg_ctl", ["-D", folder.appending(path: "data").path, "-m", "immediate", "-w", "stop"],
      netns: nil)
    return "{ \(stop.map(SystemCommands.quoted).joined(separator: " ")); } >/dev/null 2>&1; "
      + "rm -rf \(SystemCommands.quoted(folder.path))"
  }

  /// Makes `url` the server user's when the tools run as that user.
  private func giveToServerUser(_ url: URL) throws {
    guard asPostgres else { return }
    guard let user = getpwnam("postgres") else { throw FixtureError("no postgres user") }
    guard chown(url.path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
      throw FixtureError("chown postgres \(url.path) failed: errno \(errno)")
    }
  }
}

/// A TCP port no socket uses on `address` now: the one the kernel picks for a socket bound to
/// port 0 there, closed again. For an address this process cannot bind (one of another network
/// namespace), a random port from a range the kernel does not hand out to outgoing connections.
func freePort(on address: String) -> Int {
  let fallback = Int.random(in: 20_000..<30_000)
  let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard socketFD >= 0 else { return fallback }
  defer { close(socketFD) }
  var socketAddress = sockaddr_in()
  socketAddress.sin_family = sa_family_t(AF_INET)
  guard inet_pton(AF_INET, address, &socketAddress.sin_addr) == 1 else { return fallback }
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &socketAddress) { pointer in
    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
      bind(socketFD, generic, length) == 0 && getsockname(socketFD, generic, &length) == 0
    }
  }
  return bound ? Int(UInt16(bigEndian: socketAddress.sin_port)) : fallback
}
