public import Tether

/// A key whose value is a row of a PostgreSQL table, shared live with every process on every
/// host that holds the same row: see ``PostgresStrategy``.
public struct PostgresKey<Value: Sendable>: SharedKey, CustomStringConvertible {
  private let handle: PostgresRowHandle
  private let coder: PostgresCoder<Value>

  init(handle: PostgresRowHandle) {
    self.handle = handle
    self.coder = PostgresCoder(
      key: handle.row.name, location: handle.row.store.settings.description)
  }

  /// The server, the table and the row's key.
  public var id: PostgresKeyID {
    PostgresKeyID(store: handle.row.store.settings.description, row: handle.row.name)
  }

  /// `.postgres(key in postgres://user@host:port/database table tether_values)`.
  public var description: String {
    ".postgres(\(handle.row.name) in \(handle.row.store.settings))"
  }

  /// Reads the row; no row is "no value".
  public func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    handle.row.read { [coder] result in
      switch result {
      case .success(.json(let json)):
        do {
          continuation.resume(returning: try coder.decode(json))
        } catch {
          continuation.resume(fallingBackTo: nil, error: error)
        }
      case .success(.missing):
        continuation.resumeReturningInitialValue()
      case .failure(let failure):
        continuation.resume(throwing: handle.row.error(for: failure))
      }
    }
  }

  /// Delivers every change of the row made by other processes, and after an outage what
  /// changed meanwhile.
  public func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    handle.row.subscribe(
      RowSubscriber(
        changed: { [coder] content, seen in
          // Decoded before the holders' changes wait.
          let decoded: Result<Value?, any Error> =
            switch content {
            case .missing: .success(nil)
            case .json(let json): Result { try coder.decode(json) }
            }
          subscriber.give({ $0.yield(decoded: decoded) }, seen: seen)
        },
        unavailable: { subscriber.yield(throwing: $0) },
        recovered: { subscriber.yieldLoadErrorCleared() },
        saved: { subscriber.yieldSaveResult($0) }))
  }

  /// Writes the value: throttled after `withLock`, at once for `save()`.
  public func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    let json: String
    do {
      json = try coder.encode(value)
    } catch {
      return continuation.resume(throwing: error)
    }
    handle.writer.submit(
      RowChange(json: json, epoch: handle.row.epoch), immediately: context == .userInitiated,
      waiter: WriteWaiter(
        group: continuation.target, completion: { continuation.resume(with: $0) },
        superseded: { continuation.resumeSuperseded() }))
  }
}

extension PostgresKey: TransactionalKey {
  /// Reads the row, changes the value and writes it over the version read; when another
  /// process or host wrote the row first, reads it again and runs `update` again.
  public func transaction(
    context: LoadContext<Value>, update: (inout Value) throws -> Void,
    stored: (Value) -> Void
  ) throws {
    try handle.row.transaction(
      coder: coder, context: context, update: update, stored: stored, writer: handle.writer)
  }
}

extension PostgresKey: ResettableKey {
  /// Deletes the row once this process's pending change of it is written; every holder, on
  /// every host, shows its default.
  public func reset(stored: (Value?) -> Void) throws {
    try handle.row.reset(writer: handle.writer, stored: stored)
  }
}

/// Identifies a row: the server and table, and the row's key.
public struct PostgresKeyID: Hashable, Sendable {
  /// `postgres://user@host:port/database table NAME`.
  public let store: String
  /// The row's key.
  public let row: String
}
