import Foundation
import Testing
import TetherTestHelperSupport

/// The fixtures the PostgreSQL strategy's tests stand on: a throwaway server they start
/// themselves, and network namespaces to put it on another "host" and cut that host off.
///
/// Each test is skipped where its fixture cannot run, with the reason as the skip's comment,
/// which `swift test` prints ("Test … skipped: …"); CI installs what they need, so there they
/// run.
@Suite struct TestInfrastructureTests {
  /// Why the PostgreSQL tests cannot run here, or nil.
  static let postgresMissing = PostgresCluster.unavailableReason
  /// Why the cross-host tests cannot run here (PostgreSQL's reason first), or nil.
  static let networkMissing = postgresMissing ?? TestNetwork.unavailableReason

  @Test(
    .enabled(if: postgresMissing == nil, Comment(rawValue: postgresMissing ?? "")),
    .timeLimit(.minutes(2)))
  func aClusterServesOnlyItsPasswordAndKeepsItsDataAcrossRestarts() async throws {
    let cluster = try await PostgresCluster.start()
    do {
      #expect(try await cluster.psql("select 1") == "1")
      #expect(cluster.url == "postgres://tether@127.0.0.1:\(cluster.port)/postgres")
      let stored = try String(contentsOf: cluster.passwordFile, encoding: .utf8)
      #expect(stored == cluster.password)
      let mode =
        try FileManager.default.attributesOfItem(atPath: cluster.passwordFile.path)[
          .posixPermissions] as? Int
      #expect(mode == 0o600)

      let refused = try await cluster.psqlResult("select 1", password: "not-" + cluster.password)
      #expect(refused.status != 0)
      #expect(refused.errors.contains("password authentication failed"), "\(refused.errors)")

      _ = try await cluster.psql("create table kept (value text); insert into kept values ('a')")
      try await cluster.restart()
      #expect(try await cluster.psql("select value from kept") == "a")
      // A crash loses nothing committed: recovery replays it at the next start.
      _ = try await cluster.psql("insert into kept values ('b')")
      try await cluster.kill()
      #expect(!cluster.isRunning)
      try await cluster.restart()
      #expect(
        try await cluster.psql("select string_agg(value, ',' order by value) from kept") == "a,b")
    } catch {
      try? await cluster.stop()
      throw error
    }
    try await cluster.stop()
    #expect(!FileManager.default.fileExists(atPath: cluster.folder.path))
    let afterStop = try await cluster.psqlResult("select 1", connectTimeout: 2)
    #expect(afterStop.status != 0, "a stopped cluster still answered")
  }

  @Test(
    .enabled(if: networkMissing == nil, Comment(rawValue: networkMissing ?? "")),
    .timeLimit(.minutes(2)))
  func aServerInAnotherNamespaceIsReachableUntilItsClientIsPartitioned() async throws {
    let network = try await TestNetwork.make(hosts: ["server", "hostA"])
    let cluster: PostgresCluster
    do {
      cluster = try await PostgresCluster.start(
        listenAddress: network.address(of: "server"), netns: network.namespace(of: "server"))
    } catch {
      try? await network.teardown()
      throw error
    }
    let hostA = network.namespace(of: "hostA")
    do {
      #expect(cluster.host == "10.77.0.1")
      #expect(try await cluster.psql("select 1", netns: hostA) == "1")
      // Only the server's namespace has its address: from this process's it is unreachable.
      #expect(try await cluster.psqlResult("select 1", connectTimeout: 2).status != 0)

      try await network.partition("hostA")
      let cut = try await cluster.psqlResult("select 1", netns: hostA, connectTimeout: 2)
      #expect(cut.status != 0, "hostA reached the server while partitioned")

      try await network.heal("hostA")
      // The link is up at once, but give the first connection a deadline rather than a try.
      let deadline = ContinuousClock.now + .seconds(20)
      var healed = try await cluster.psqlResult("select 1", netns: hostA, connectTimeout: 2)
      while healed.status != 0 && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(100))
        healed = try await cluster.psqlResult("select 1", netns: hostA, connectTimeout: 2)
      }
      #expect(healed.status == 0, "hostA did not reach the server after heal: \(healed.errors)")
      #expect(healed.output == "1\n")
    } catch {
      try? await cluster.stop()
      try? await network.teardown()
      throw error
    }
    try await cluster.stop()
    try await network.teardown()
  }
}
