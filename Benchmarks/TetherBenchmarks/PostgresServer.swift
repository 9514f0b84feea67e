import Dispatch
import Foundation
import PostgresNIO
import Synchronization
import Tether
import TetherPostgres

/// The throwaway PostgreSQL server `report.py` starts for a run, as its environment names it:
/// `TETHER_BENCH_POSTGRES_URL` (`postgres://user@host:port/database`) and
/// `TETHER_BENCH_POSTGRES_PASSWORD_FILE` (mode 0600).
struct BenchServer: Sendable {
  /// The table every PostgreSQL benchmark uses; Tether's store makes it (with its triggers).
  static let table = "bench_values"

  let url: String
  let passwordFile: String
  let host: String
  let port: Int
  let user: String
  let database: String
  let password: String

  /// The server of this run, or `nil` when the environment names none (the benchmarks run
  /// outside `report.py`): the PostgreSQL benchmarks are then left out.
  static let current: BenchServer? = {
    let environment = ProcessInfo.processInfo.environment
    guard let url = environment["TETHER_BENCH_POSTGRES_URL"],
      let passwordFile = environment["TETHER_BENCH_POSTGRES_PASSWORD_FILE"]
    else { return nil }
    guard let parts = URLComponents(string: url), let host = parts.host, let user = parts.user,
      let password = try? String(contentsOfFile: passwordFile, encoding: .utf8)
    else { fatalError("cannot use the PostgreSQL server \(url) (\(passwordFile))") }
    return BenchServer(
      url: url, passwordFile: passwordFile, host: host, port: parts.port ?? 5432, user: user,
      database: String(parts.path.drop(while: { $0 == "/" })),
      password: password.split(separator: "\n").first.map(String.init) ?? "")
  }()

  /// The config of a scope: every key is a row of ``table`` on this server.
  var configuration: TetherConfiguration {
    .string(
      """
      [keys]
      * = postgres
      [strategy.postgres]
      url = \(url)
      password-file = \(passwordFile)
      table = \(Self.table)
      throttle = 100ms
      """)
  }

  /// Runs `body` in a scope of its own, as one host: its keys share one connection.
  func withHost<R>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
  ) async throws -> R {
    try await TetherSystem.withBootstrap(
      configuration: configuration, strategies: [PostgresStrategy.self], operation: body)
  }

  /// Runs `body` with a plain PostgresNIO connection, closed afterwards (also when it throws).
  func withConnection<R>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (PostgresConnection) async throws -> R
  ) async throws -> R {
    let connection = try await PostgresConnection.connect(
      configuration: PostgresConnection.Configuration(
        host: host, port: port, username: user, password: password, database: database,
        tls: .disable),
      id: Self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue, logger: benchLogger)
    let result: Result<R, any Error>
    do {
      result = .success(try await body(connection))
    } catch {
      result = .failure(error)
    }
    try? await connection.close()
    return try result.get()
  }

  private static let nextID = Atomic<Int>(1)
}

/// The logger of the benchmarks' own connections.
let benchLogger = Logger(label: "tether.bench.postgres")

extension PostgresConnection {
  /// Runs `query` and reads every row it returns (a statement is done when its rows are read).
  func execute(_ query: PostgresQuery) async throws {
    for try await _ in try await self.query(query, logger: benchLogger) {}
  }

  /// The first `(String, Int64)` row of `query`, such as a row's value and version.
  func firstRow(_ query: PostgresQuery) async throws -> (String, Int64)? {
    var found: (String, Int64)?
    for try await row in try await self.query(query, logger: benchLogger).decode(
      (String, Int64).self)
    where found == nil {
      found = row
    }
    return found
  }
}

/// The moment a callback marked, awaited with a deadline. The holders' Observation callbacks
/// mark it as they fire, so a figure does not include the time to wake the waiting task.
final class Moment: Sendable {
  private struct State {
    var marked: ContinuousClock.Instant?
    var expired = false
    var waiter: CheckedContinuation<ContinuousClock.Instant?, Never>?
  }

  private let state = Mutex(State())

  /// Marks now, unless marked before or given up on.
  func mark() {
    let now = ContinuousClock.now
    let waiter = state.withLock { state -> CheckedContinuation<ContinuousClock.Instant?, Never>? in
      guard state.marked == nil, !state.expired else { return nil }
      state.marked = now
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: now)
  }

  /// The marked moment, or `nil` when none was marked within `limit`.
  func wait(upTo limit: Duration) async -> ContinuousClock.Instant? {
    await withCheckedContinuation { continuation in
      let marked = state.withLock { state -> ContinuousClock.Instant? in
        if state.marked == nil { state.waiter = continuation }
        return state.marked
      }
      if let marked { return continuation.resume(returning: marked) }
      DispatchQueue.global().asyncAfter(deadline: .now() + limit.timeInterval) {
        let waiter = self.state.withLock { state in
          defer { state.waiter = nil }
          state.expired = state.marked == nil
          return state.expired ? state.waiter : nil
        }
        waiter?.resume(returning: nil)
      }
    }
  }
}

/// Waits until `condition` holds, checking every 100 µs, or throws once `limit` has passed.
func eventually(
  within limit: Duration, _ what: @autoclosure () -> String, _ condition: () -> Bool
) async throws {
  let deadline = ContinuousClock.now + limit
  while !condition() {
    guard ContinuousClock.now < deadline else {
      throw BenchmarkFailure("\(what()) did not happen within \(limit)")
    }
    try await Task.sleep(for: .microseconds(100))
  }
}

/// Waits until `holder` has loaded its value from the server, without error.
func loaded<Value: Sendable>(_ holder: Shared<Value>) async throws {
  try await eventually(within: .seconds(10), "the first load of \(holder)") {
    !holder.isLoading && holder.loadError == nil
  }
}

extension Duration {
  /// The duration in seconds, for Dispatch.
  fileprivate var timeInterval: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
