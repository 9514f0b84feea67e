public import Tether

/// The `postgres` strategy: each registered key is a row of a PostgreSQL table, shared live by
/// every process on every host that maps it to the same server and table.
///
/// ```ini
/// [keys]
/// launches = postgres
///
/// [strategy.postgres]
/// url           = postgres://app@db.internal:5432/app
/// # mode 0600; one line, the password
/// password-file = /etc/app/db-password
/// # disable (default), prefer or require
/// tls           = require
/// # default: tether_values; made when missing
/// table         = tether_values
/// # default: the table's name
/// channel       = tether_values
/// # default: 100ms
/// throttle      = 100ms
///
/// [key.launches]
/// # the row's key; default: the key's name
/// name = notes.launches
/// ```
///
/// Values are `Codable`, stored as `jsonb`. A write replaces the row only at the version this
/// process last read or wrote, and a trigger gives the row a new version and announces
/// `key:version` with `NOTIFY`: every holder that LISTENs reads the newer row. A row edited by
/// hand (`UPDATE tether_values SET value = '3' WHERE key = 'launches'`) is announced the same way.
///
/// A store keeps one connection per scope. When it drops, holders' `loadError` says so
/// (`TetherError.unreachable(key:store:reason:)`), changes are kept in memory with that
/// `saveError`, and the store reconnects with backoff; then it re-reads every held row (what
/// was announced meanwhile was lost with the connection) and writes the kept changes, unless
/// the row moved meanwhile: then the database wins, as an edit of a file wins over a change
/// not yet written to it. `transaction` and `reset()` work across hosts.
public struct PostgresStrategy: PersistenceStrategy {
  /// `postgres`.
  public static let kind = "postgres"
  /// Keys read `name`, the row's key.
  public static var keyOptionNames: Set<String>? { ["name"] }

  /// The server, the table and how keys write.
  public let settings: PostgresSettings

  /// Reads `url`, `password-file`, `tls`, `table`, `channel` and `throttle`.
  public init(options: StrategyOptions) throws {
    settings = try PostgresSettings(options: options)
  }

  /// Closes the current scope's connections (those of every PostgreSQL key made in it), each
  /// with a Terminate, so the server ends the session at once; returns when they are closed.
  ///
  /// `TetherSystem/shutdown()` calls it after writing what was pending. The scope's keys are
  /// done with from then on: holders' `loadError` says the store was shut down
  /// (`TetherError/shutDown(key:store:)`, naming the key), a change made afterwards is kept
  /// in memory with that `saveError`, and `save()` throws it. Nothing reconnects.
  public func shutdown() async {
    await PostgresStores.current.shutdown()
  }

  /// The row `name` (or the key's `name` option) of the table; values must be `Codable`.
  public func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    guard type is any Codable.Type else {
      throw TetherError.unsupportedType("\(type)", key: name, kind: Self.kind)
    }
    let row = options["name"] ?? name
    try KeyName.validate(row)
    return PostgresKey<Value>(handle: PostgresStores.current.store(settings).handle(named: row))
  }
}
