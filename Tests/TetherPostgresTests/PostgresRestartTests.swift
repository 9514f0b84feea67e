import Foundation
import Testing
import TetherTestHelperSupport
import TetherTesting

/// Holder processes of a server that crashes (`pg_ctl -m immediate`) and starts again: a change
/// made while it is down is kept and written once it is back, and edits after the restart reach
/// every holder. A cluster of its own: the shared one must not go down under other tests.
@Suite(postgresAvailable, .timeLimit(.minutes(3)))
struct PostgresRestartTests {
  @Test func aChangeMadeWhileTheServerIsDownIsWrittenOnceItIsBack() async throws {
    let cluster = try await PostgresCluster.start()
    do {
      try await Self.scenario(cluster)
    } catch {
      try? await cluster.stop()
      throw error
    }
    try await cluster.stop()
  }

  private static func scenario(_ cluster: PostgresCluster) async throws {
    let config = TestServer.configText(cluster, table: "restarted")
    try await HolderProcess.withTwo(config: config, key: "count") { a, b in
      _ = await a.setAndSave(1)
      await expectEventually(timeout: .seconds(5), "B sees 1") { b.value == 1 }

      try await cluster.kill()
      a.set(7)
      await expectEventually(timeout: .seconds(15), "A keeps 7, unsaved\n\(a.transcript)") {
        a.state.map { $0.value == 7 && $0.saveError != nil && $0.loadError != nil } ?? false
      }
      await expectEventually(timeout: .seconds(15), "B notices\n\(b.transcript)") {
        b.state?.loadError != nil
      }
      try await cluster.restart()
      await expectEventually(timeout: .seconds(20), "both show 7\n\(a.transcript)") {
        a.value == 7 && b.value == 7 && a.isCurrent && b.isCurrent
          && a.state?.saveError == nil
      }
      #expect(try await cluster.psql("SELECT value FROM restarted WHERE key = 'count'") == "7")

      // An edit made at once after the server is back (the holders may not have reconnected
      // yet: then their re-read finds it) reaches both.
      try await cluster.kill()
      await expectEventually(timeout: .seconds(15), "both notice\n\(b.transcript)") {
        a.state?.loadError != nil && b.state?.loadError != nil
      }
      try await cluster.restart()
      try await TestServer.edit(cluster, table: "restarted", key: "count", json: "9")
      await expectEventually(timeout: .seconds(20), "both show 9\n\(b.transcript)") {
        a.value == 9 && b.value == 9 && a.isCurrent && b.isCurrent
      }
      for holder in [a, b] {
        #expect(neverGoesBack(holder.values), "\(holder.name): \(holder.values)")
      }
    }
  }
}
