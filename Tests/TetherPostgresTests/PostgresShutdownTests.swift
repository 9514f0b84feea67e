import Foundation
import Testing
import Tether
import TetherPostgres
import TetherTestHelperSupport
import TetherTesting

/// `TetherSystem.shutdown()` closes the scope's connections, after writing what was pending,
/// while its holders are still held; what they do afterwards fails saying so.
@Suite(postgresAvailable)
struct PostgresShutdownTests {
  @Test func shutdownWritesThePendingChangeThenClosesTheConnection() async throws {
    let cluster = try await TestServer.shared()
    let table = TestServer.uniqueTable()
    let connections = TestServer.connectionsQuery(table: table)
    try await TetherSystem.withBootstrap(
      configuration: TestServer.config(cluster, table: table, throttle: "60s"),
      strategies: [PostgresStrategy.self]
    ) {
      @Shared(.registered("count")) var count = 0
      await expectEventually(timeout: .seconds(30)) { !$count.isLoading }
      $count.withLock { $0 = 1 }  // written at once: the window's leading write
      $count.withLock { $0 = 2 }  // due at the window's end, a minute away
      #expect(try await cluster.psql(connections) == "1")

      await TetherSystem.shutdown()

      #expect(try await cluster.psql("SELECT value FROM \(table) WHERE key = 'count'") == "2")
      // Terminate ends the session at once; the server's process takes a moment to go.
      let closed = try await TestServer.eventually(timeout: .seconds(10)) {
        try await cluster.psql(connections) == "0"
      }
      #expect(closed, "the connection is still open after shutdown, with its holder held")

      // A change after shutdown is kept, and says why it is not written, naming the key.
      $count.withLock { $0 = 3 }
      await #expect(throws: TetherError.self) { try await $count.save() }
      let error = "\($count.saveError.map { "\($0)" } ?? "no saveError")"
      #expect(error.contains("count") && error.contains("shut down"), "\(error)")
      #expect(count == 3)
      #expect(try await cluster.psql(connections) == "0", "a key used after shutdown reconnected")
    }
  }
}
