import Foundation
import Testing
import Tether
import TetherPostgres
import TetherTestHelperSupport
import TetherTesting

/// The throwaway PostgreSQL cluster these tests share: started by the first test that asks, on
/// loopback, in a temporary folder, and stopped when the test process exits. Each test keeps
/// to a table of its own, so tests run in parallel without seeing each other's rows.
enum TestServer {
  /// One start, however many tests ask at once: they all wait for the same task.
  private actor Starter {
    var starting: Task<PostgresCluster, any Error>?

    func shared() async throws -> PostgresCluster {
      if let starting { return try await starting.value }
      let task = Task { try await PostgresCluster.start() }
      starting = task
      return try await task.value
    }
  }

  private static let starter = Starter()

  /// Why these tests cannot run here (no PostgreSQL), printed by the tests that skip.
  static let unavailableReason = PostgresCluster.unavailableReason

  /// The shared cluster.
  static func shared() async throws -> PostgresCluster { try await starter.shared() }

  /// A table name no other test uses.
  static func uniqueTable() -> String {
    "t_" + UUID().uuidString.prefix(8).lowercased()
  }

  /// The query that counts the server's connections made by Tether stores of `table` (their
  /// `application_name` is `tether TABLE PROGRAM`).
  static func connectionsQuery(table: String) -> String {
    "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'tether \(table) %'"
  }

  /// The body of a `[strategy.postgres]` section for `cluster`'s `table`.
  static func options(
    _ cluster: PostgresCluster, table: String, throttle: String = "50ms"
  ) -> String {
    """
    url = \(cluster.url)
    password-file = \(cluster.passwordFile.path)
    table = \(table)
    throttle = \(throttle)
    """
  }

  /// A config mapping every key to `cluster`'s `table`.
  static func config(
    _ cluster: PostgresCluster, table: String, throttle: String = "50ms"
  ) -> TetherConfiguration {
    .string(configText(cluster, table: table, throttle: throttle))
  }

  /// ``config(_:table:throttle:)``'s text, for a helper process or a config file.
  static func configText(
    _ cluster: PostgresCluster, table: String, throttle: String = "50ms"
  ) -> String {
    """
    [keys]
    * = postgres

    [strategy.postgres]
    \(options(cluster, table: table, throttle: throttle))
    """
  }

  /// Whether `condition` (which asks the server, so it is async) holds within `timeout`,
  /// asked every 50 ms.
  static func eventually(
    timeout: Duration, _ condition: () async throws -> Bool
  ) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if try await condition() { return true }
      try await Task.sleep(for: .milliseconds(50))
    }
    return try await condition()
  }

  /// Writes `json` as row `key` of `table` the way another program would: with `psql`.
  static func edit(
    _ cluster: PostgresCluster, table: String, key: String, json: String
  ) async throws {
    _ = try await cluster.psql(
      """
      INSERT INTO \(table) (key, value, version) VALUES ('\(key)', '\(json)', 0)
      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
      """)
  }
}

/// Skips a test whose server cannot be started here, saying why.
let postgresAvailable = Testing.ConditionTrait.enabled(
  if: TestServer.unavailableReason == nil,
  Comment(rawValue: TestServer.unavailableReason ?? "PostgreSQL is installed"))

/// Skips a test that needs hosts in network namespaces when none can be made here, saying why.
let namespacesAvailable = Testing.ConditionTrait.enabled(
  if: TestNetwork.unavailableReason == nil,
  Comment(rawValue: TestNetwork.unavailableReason ?? "network namespaces can be made"))
