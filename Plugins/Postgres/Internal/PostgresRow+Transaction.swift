import Foundation
import NIOCore
import Tether

extension PostgresRow {
  /// Reads the row, lets `update` change the value and writes it over the version read; when
  /// another writer moved the row first, reads again and runs `update` again.
  ///
  /// Blocks the calling thread (Tether's transaction thread) for the round trips.
  func transaction<Value>(
    coder: PostgresCoder<Value>, context: LoadContext<Value>,
    update: (inout Value) throws -> Void, stored: (Value) -> Void,
    writer: ThrottledWriter<RowChange>
  ) throws {
    try writer.drain()
    for attempt in 0... {
      beginWrite()
      var written: (version: Int64, json: String)?
      do {
        let found = try fetchNow()
        var value: Value
        if let found {
          value = try coder.decode(found.json)
        } else if let initial = context.initialValue {
          value = initial
        } else {
          throw TetherError.noValue(key: name)
        }
        try update(&value)
        let json = try coder.encode(value)
        written = try writeNow(json, base: found?.version ?? 0)
        if written != nil { stored(value) }
      } catch let failure as PostgresFailure {
        finishWrite(written: nil)
        throw error(for: failure)
      } catch {
        finishWrite(written: nil)
        throw error
      }
      finishWrite(written: written)
      if written != nil { return }
      // Another writer won the row: try again after a short random pause, so that writers
      // racing for one row do not collide in step.
      Thread.sleep(forTimeInterval: Double.random(in: 0...Double(min(attempt, 20))) / 2_000)
    }
  }

  /// Deletes the row once this process's pending change is written; holders show their default.
  func reset<Value>(writer: ThrottledWriter<RowChange>, stored: (Value?) -> Void) throws {
    try writer.drain()
    beginWrite()
    do {
      _ = try wait(store.link.run(store.statements.delete(name)))
    } catch {
      finishWrite(written: nil)
      throw self.error(for: error)
    }
    deleted()
    stored(nil)
    finishWrite(written: nil)
  }

  /// The row now, read on the calling thread.
  func fetchNow() throws -> (json: String, version: Int64)? {
    let rows = try wait(store.link.run(store.statements.fetch(name)))
    guard let row = rows.first else { return nil }
    let (json, version) = try row.decode((String, Int64).self)
    return (json, version)
  }

  /// Writes `json` over `base`, on the calling thread: the new version and the JSON as the
  /// server wrote it, or `nil` when the row moved past `base`.
  func writeNow(_ json: String, base: Int64) throws -> (version: Int64, json: String)? {
    let rows = try wait(store.link.run(store.statements.write(name, json: json, base: base)))
    guard let row = rows.first else { return nil }
    let (version, written) = try row.decode((Int64, String).self)
    return (version, written)
  }

  /// The result of `future`, waited for on the calling thread (never an event loop's).
  private func wait<T: Sendable>(_ future: EventLoopFuture<T>) throws(PostgresFailure) -> T {
    do {
      return try future.wait()
    } catch {
      throw PostgresFailure(error)
    }
  }
}
