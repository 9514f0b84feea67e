import Foundation
import Synchronization
package import TetherTesting

/// "Hosts" on one machine, for tests across a network: a Linux network namespace per host, each
/// joined by a veth pair to one bridge (in a namespace of its own, the hub), all on the subnet
/// 10.77.0.0/24, so every host reaches every other host's address. A host's link can be cut
/// (`partition`) and restored (`heal`). Needs root (CAP_SYS_ADMIN) and iproute2's `ip`.
///
/// ```swift
/// let network = try await TestNetwork.make(hosts: ["server", "hostA"])
/// let cluster = try await PostgresCluster.start(
///   listenAddress: network.address(of: "server"), netns: network.namespace(of: "server"))
/// _ = try await cluster.psql("select 1", netns: network.namespace(of: "hostA"))
/// ```
///
/// Names start with a random prefix (`tt1a2b3c-hostA`), so parallel tests' networks never
/// clash; each namespace has its own interfaces and routes, so they may all use one subnet. A
/// network not torn down is deleted when deinitialized or when the test process exits.
package final class TestNetwork: Sendable {
  /// The host names, in the order given: the first is 10.77.0.1, the next 10.77.0.2, and so on.
  package let hosts: [String]
  /// The prefix of this network's namespace names.
  package let prefix: String
  /// Whether `teardown()` ran.
  private let tornDown = Mutex(false)

  /// The first three parts of every host's address.
  static let subnet = "10.77.0"

  /// The namespace holding the bridge.
  var hub: String { "\(prefix)-hub" }

  /// Why no network can be made here, or nil when one can: worked out once by making a
  /// namespace with a bridge and a veth pair in it, and deleting it again.
  package static var unavailableReason: String? { probe }

  init(hosts: [String], prefix: String) {
    self.hosts = hosts
    self.prefix = prefix
  }

  deinit { ExitCleanup.runNow(prefix) }

  /// Makes a namespace per host in `hosts` (letters and digits, up to 20 each, no repeats, at
  /// most 200) and connects them.
  package static func make(hosts: [String]) async throws -> TestNetwork {
    if let reason = unavailableReason { throw FixtureError(reason) }
    let valid = hosts.allSatisfy { host in
      (1...20).contains(host.count)
        && host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
    guard valid, Set(hosts).count == hosts.count, (1...200).contains(hosts.count) else {
      throw FixtureError("host names must be 1 to 200 distinct words of letters and digits")
    }
    let network = TestNetwork(hosts: hosts, prefix: "tt" + SystemCommands.randomTag())
    // Registered before anything is made: a failure half-way must not leave namespaces behind.
    let names = [network.hub] + hosts.map(network.namespace(of:))
    let ip = SystemCommands.quoted(SystemCommands.ip ?? "ip")
    ExitCleanup.add(
      network.prefix,
      names.map { "\(ip) netns delete \(SystemCommands.quoted($0)) >/dev/null 2>&1" }
        .joined(separator: "; "))
    do {
      try await network.build()
    } catch {
      try? await network.teardown()
      throw error
    }
    return network
  }

  /// The namespace of `host`, for `ip netns exec` or `PostgresCluster.start(netns:)`.
  package func namespace(of host: String) -> String {
    precondition(hosts.contains(host), "\(host) is not a host of this network")
    return "\(prefix)-\(host)"
  }

  /// The IPv4 address of `host`, as `10.77.0.1`.
  package func address(of host: String) -> String {
    guard let index = hosts.firstIndex(of: host) else {
      preconditionFailure("\(host) is not a host of this network")
    }
    return "\(Self.subnet).\(index + 1)"
  }

  /// The command line prefix that runs a command inside `host`: `["/usr/sbin/ip", "netns",
  /// "exec", NAMESPACE]`.
  package func execPrefix(_ host: String) -> [String] {
    [SystemCommands.ip ?? "ip", "netns", "exec", namespace(of: host)]
  }

  /// Runs `executable` with `arguments` inside `host` to completion (TetherTesting's
  /// `runChild`).
  package func run(
    in host: String, _ executable: String, _ arguments: [String],
    environment: [String: String] = [:], timeout: Duration = .seconds(120)
  ) async throws -> ChildResult {
    let command = execPrefix(host) + [executable] + arguments
    return try await runChild(
      command[0], Array(command.dropFirst()), environment: environment, timeout: timeout)
  }

  /// Cuts `host` off: both ends of its link go down, so nothing it sends leaves and nothing
  /// reaches it (it has no route to the subnet while its end is down).
  package func partition(_ host: String) async throws {
    try await setLink(of: host, "down")
  }

  /// Restores the link `partition` cut.
  package func heal(_ host: String) async throws {
    try await setLink(of: host, "up")
  }

  /// Deletes the namespaces (and with them the links); doing it again does nothing. Stop any
  /// server running inside first: a namespace in which a process still runs lives on unnamed.
  package func teardown() async throws {
    guard
      tornDown.withLock({ done in
        defer { done = true }
        return !done
      })
    else { return }
    var failures: [String] = []
    for name in [hub] + hosts.map(namespace(of:)) {
      // Made in order, so a failed `make` may have made only some of them.
      guard FileManager.default.fileExists(atPath: "/run/netns/\(name)") else { continue }
      do { try await Self.ip(["netns", "delete", name]) } catch { failures.append("\(error)") }
    }
    ExitCleanup.remove(prefix)
    if !failures.isEmpty { throw FixtureError(failures.joined(separator: "\n")) }
  }

  /// Makes the hub with its bridge, then each host's namespace, link and address.
  private func build() async throws {
    try await Self.ip(["netns", "add", hub])
    try await Self.ip(["-n", hub, "link", "set", "lo", "up"])
    // No spanning tree (the default): a port forwards as soon as it is up, also after `heal`.
    try await Self.ip(["-n", hub, "link", "add", "name", "br0", "type", "bridge"])
    try await Self.ip(["-n", hub, "link", "set", "br0", "up"])
    for (index, host) in hosts.enumerated() {
      let name = namespace(of: host)
      try await Self.ip(["netns", "add", name])
      try await Self.ip(["-n", name, "link", "set", "lo", "up"])
      // Made in the hub with its peer put in the host at once: interface names are each
      // namespace's own, so no name is ever seen in this process's namespace.
      try await Self.ip([
        "-n", hub, "link", "add", "name", "p\(index)", "type", "veth", "peer", "name", "eth0",
        "netns", name,
      ])
      try await Self.ip(["-n", hub, "link", "set", "p\(index)", "master", "br0", "up"])
      try await Self.ip(["-n", name, "addr", "add", "\(address(of: host))/24", "dev", "eth0"])
      try await Self.ip(["-n", name, "link", "set", "eth0", "up"])
    }
  }

  /// Sets both ends of `host`'s link `state` (up or down).
  private func setLink(of host: String, _ state: String) async throws {
    guard let index = hosts.firstIndex(of: host) else {
      throw FixtureError("\(host) is not a host of this network")
    }
    try await Self.ip(["-n", hub, "link", "set", "p\(index)", state])
    try await Self.ip(["-n", namespace(of: host), "link", "set", "eth0", state])
  }

  /// Runs `ip` with `arguments`, throwing with its standard error when it fails.
  private static func ip(_ arguments: [String]) async throws {
    let result = try await runChild(
      SystemCommands.ip ?? "ip", arguments, timeout: .seconds(30))
    guard result.status == 0 else {
      throw FixtureError(
        "ip \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.errors)")
    }
  }

  /// The probe behind `unavailableReason`, run once.
  private static let probe: String? = {
    guard let ip = SystemCommands.ip else {
      return "iproute2's ip is not installed (install Debian's iproute2: make test-deps)"
    }
    let name = "tt\(SystemCommands.randomTag())-probe"
    let steps = [
      ["netns", "add", name],
      ["-n", name, "link", "add", "name", "br0", "type", "bridge"],
      ["-n", name, "link", "add", "name", "veth0", "type", "veth", "peer", "name", "veth1"],
    ]
    defer { _ = system("\(ip) netns delete \(name) >/dev/null 2>&1") }
    for step in steps {
      // `system`, not Foundation's Process: this runs while tests are planned, on one of the
      // few threads of Swift's pool, and `waitUntilExit` would spin there.
      let status = system("\(ip) \(step.joined(separator: " ")) >/dev/null 2>&1")
      guard status == 0 else {
        return "`ip \(step.joined(separator: " "))` failed (status \(status >> 8)): network "
          + "namespaces, bridges and veth pairs need root (CAP_SYS_ADMIN)"
      }
    }
    return nil
  }()
}
