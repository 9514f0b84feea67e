import Testing
import Tether
import TetherPostgres
import TetherTesting

/// The shared conformance suite, with an outside edit made by `psql`: the rules every strategy
/// keeps hold for rows of a table as for files.
@Suite(postgresAvailable)
struct PostgresConformanceTests {
  @Test func thePostgresStrategyPassesTheConformanceSuite() async throws {
    let cluster = try await TestServer.shared()
    let table = TestServer.uniqueTable()
    try await StrategyConformance.run(
      PostgresStrategy.self, options: TestServer.options(cluster, table: table),
      externalEdit: { name, value in
        try await TestServer.edit(cluster, table: table, key: name, json: "\(value)")
      },
      deadline: .seconds(10))
  }
}
