import Tether

/// What a row's keys hold: the row and its throttled writer, kept while a key is. When the last
/// key goes with a change still to write, the change is written soon all the same (and by a
/// flush, or at exit, meanwhile).
final class PostgresRowHandle: PendingWrites {
  let row: PostgresRow
  let writer: ThrottledWriter<RowChange>

  init(row: PostgresRow) {
    self.row = row
    writer = ThrottledWriter(
      module: "tether.postgres", subject: row.name, throttle: row.store.settings.throttle,
      merge: nil,
      perform: { [row] change in row.write(change) },
      recovered: { [row] in row.tellSaved(.success(())) })
    row.attach(writer)
    PendingWritesRegistry.register(self, scope: row.store.scope)
  }

  deinit {
    PendingWritesRegistry.unregister(ObjectIdentifier(self))
    row.store.forget(row.name)
    if !writer.isSettled {
      PendingWritesRegistry.flushSoon(scope: row.store.scope) { [writer] in writer.flushNow() }
    }
  }

  func flushNow() { writer.flushNow() }
}

/// A change waiting to be written: its JSON, and the ``PostgresRow/epoch`` it was made in.
struct RowChange: Sendable, Equatable {
  let json: String
  let epoch: UInt64
}
