import Foundation
import Testing
import Tether
import TetherTestHelperSupport
import TetherTesting

/// The `tether` tool reads, writes, watches and resets rows through the strategy's own code.
@Suite(postgresAvailable)
struct PostgresToolTests {
  private static var tetherPath: String {
    URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent().appending(path: "tether")
      .path
  }

  private static func tether(_ arguments: [String]) async throws -> ChildResult {
    try await runChild(tetherPath, arguments)
  }

  @Test func theToolSetsGetsWatchesAndResetsARow() async throws {
    let cluster = try await TestServer.shared()
    let table = TestServer.uniqueTable()
    try await withTemporaryDirectory { folder in
      let config = folder.appending(path: "tether.conf")
      try Data(
        """
        [keys]
        * = postgres

        [strategy.postgres]
        \(TestServer.options(cluster, table: table))
        """.utf8
      ).write(to: config)
      let set = try await Self.tether(["set", "count", "5", "--config", config.path])
      #expect(set.status == 0, "\(set.errors)")
      let row = "SELECT value FROM \(table) WHERE key = 'count'"
      #expect(try await cluster.psql(row) == "5")
      let get = try await Self.tether(["get", "count", "--config", config.path])
      #expect(get.output == "5\n", "\(get.errors)")

      // Another process (psql) edits the row; the tool's watch sees it live.
      let watch = try RunningChild(
        Self.tetherPath, ["watch", "count", "--json", "--config", config.path])
      await expectEventually(timeout: .seconds(10)) { watch.text.contains("5") }
      try await TestServer.edit(cluster, table: table, key: "count", json: "8")
      await expectEventually(timeout: .seconds(10)) { watch.text.contains("8") }
      watch.process.interrupt()
      _ = await watch.finish()

      let refused = try await Self.tether(["set", "count", "not json", "--config", config.path])
      #expect(refused.status == 1 && refused.errors.contains("not JSON"))
      #expect(try await cluster.psql(row) == "8")

      let reset = try await Self.tether(["reset", "count", "--config", config.path])
      #expect(reset.status == 0, "\(reset.errors)")
      #expect(try await cluster.psql(row) == "")
    }
  }
}
