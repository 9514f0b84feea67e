import Dispatch
import NIOCore
import PostgresNIO
import Synchronization
import Tether

/// What a row holds, as its holders are told it.
enum RowContent: Sendable {
  /// The row's value, as JSON text.
  case json(String)
  /// No row: holders show their default.
  case missing
}

/// One holder's subscription to a row, typed by the key that made it.
struct RowSubscriber: Sendable {
  /// A change made elsewhere.
  let changed: @Sendable (RowContent) -> Void
  /// The server cannot be reached: the value shown may be out of date.
  let unavailable: @Sendable (any Error) -> Void
  /// The server is back and the row did not move: the value shown is current.
  let recovered: @Sendable () -> Void
  /// How a write no caller waits for went (one kept after a failure, written on reconnect).
  let saved: @Sendable (Result<Void, any Error>) -> Void
}

/// One row of a store's table, as this process knows it: the newest version it has read or
/// written, and who holds it.
///
/// Every write names the version it replaces, so a row that moved meanwhile (another host's
/// write, a `psql` edit) is never overwritten: the database wins, as an external edit wins over
/// a pending file write. Announcements that arrive while this process writes the row wait for
/// the write's version: one older than it is this process's own past, not news.
final class PostgresRow: Sendable {
  private struct State {
    var known: Int64 = 0
    var exists = false
    var writing = 0
    var waitingAnnouncement: Int64 = 0
    var subscribers: [Int: RowSubscriber] = [:]
    var nextSubscriber = 0
  }

  let name: String
  let store: PostgresStore
  private let state = Mutex(State())
  /// The row's throttled writer, held by the handle that owns both.
  private let writerReference = Mutex<WeakWriter>(WeakWriter())

  private struct WeakWriter {
    weak var writer: ThrottledWriter<String>?
  }

  init(name: String, store: PostgresStore) {
    self.name = name
    self.store = store
  }

  func attach(_ writer: ThrottledWriter<String>) {
    writerReference.withLock { $0.writer = writer }
  }

  private var writer: ThrottledWriter<String>? { writerReference.withLock { $0.writer } }

  // MARK: Reading

  /// Reads the row: its JSON and version, or `nil` when there is none.
  func read(_ done: @escaping @Sendable (Result<RowContent, PostgresFailure>) -> Void) {
    store.link.run(store.statements.fetch(name)).whenComplete { result in
      done(
        result.mapError(PostgresFailure.init).map { rows in
          guard let (json, version) = Self.decode(rows) else { return .missing }
          self.state.withLock { state in
            if version > state.known {
              state.known = version
              state.exists = true
            }
          }
          return .json(json)
        })
    }
  }

  /// The JSON and version of the one row `rows` holds, if any.
  private static func decode(_ rows: PostgresQueryResult) -> (String, Int64)? {
    guard let row = rows.first else { return nil }
    do {
      return try row.decode((String, Int64).self)
    } catch {
      // The statement names two columns of these types: a row that is not so is a server
      // unlike any this code was written for. Said, and taken as no row.
      PostgresStore.logger.error("a row read back does not decode: \(error)")
      return nil
    }
  }

  /// Another process changed the row to `version` (or deleted it, announcing a version of its
  /// own): read it, unless this process knows that version already.
  func announced(_ version: Int64) {
    let due = state.withLock { state -> Bool in
      guard version > state.known else { return false }
      guard state.writing == 0 else {
        state.waitingAnnouncement = max(state.waitingAnnouncement, version)
        return false
      }
      return true
    }
    if due { fetchAnnounced(version) }
  }

  private func fetchAnnounced(_ version: Int64) {
    store.link.run(store.statements.fetch(name)).whenComplete { result in
      guard case .success(let rows) = result else { return }  // The link tells of failures.
      let found = Self.decode(rows)
      let news = self.state.withLock { state -> Bool in
        guard let (_, rowVersion) = found else {
          // Deleted: the announcement's version is the deletion's.
          guard state.exists || version > state.known else { return false }
          state.known = max(state.known, version)
          state.exists = false
          return true
        }
        guard rowVersion > state.known else { return false }
        state.known = rowVersion
        state.exists = true
        return true
      }
      guard news else { return }
      self.dropPending()
      self.tell(found.map { .json($0.0) } ?? .missing)
    }
  }

  /// After a reconnect: `found` is what the row holds now. A row that moved while the link was
  /// down wins over a change kept meanwhile; one that did not lets the change be written.
  func resynchronized(_ found: (json: String, version: Int64)?) {
    let moved = state.withLock { state -> Bool in
      let moved = found.map { $0.version != state.known || !state.exists } ?? state.exists
      if let found { state.known = max(state.known, found.version) }
      state.exists = found != nil
      return moved
    }
    if moved {
      dropPending()
      tell(found.map { .json($0.json) } ?? .missing)
    } else {
      for subscriber in subscribers { subscriber.recovered() }
    }
    if let writer, writer.hasPending {
      DispatchQueue.global().async { writer.flushNow() }
    }
  }

  /// The server cannot be reached.
  func unavailable(_ failure: PostgresFailure) {
    let error = TetherError.unreachable(
      key: name, store: store.settings.description, reason: failure.description)
    for subscriber in subscribers { subscriber.unavailable(error) }
  }

  // MARK: Writing

  /// Writes `json` over the version this process knows, on the writer's queue (it blocks).
  func write(_ json: String) -> ThrottledWriter<String>.Outcome {
    let base = beginWrite()
    let version: Int64?
    do {
      version = try writeNow(json, base: base)
    } catch {
      finishWrite(version: nil)
      let failure = PostgresFailure(error)
      return failure.isRefusal
        ? .rejected(self.error(for: failure)) : .failed(self.error(for: failure))
    }
    finishWrite(version: version)
    guard version != nil else {
      return .conflicted(TetherError.conflict(key: name, location: store.settings.description))
    }
    return .written
  }

  /// `failure` said of this key: a write the server refused, or a server out of reach.
  func error(for failure: PostgresFailure) -> TetherError {
    guard failure.isRefusal else {
      return .unreachable(key: name, store: store.settings.description, reason: failure.description)
    }
    return .notSaved(key: name, reason: "\(store.settings) refused it: \(failure)")
  }

  /// This process deleted the row.
  func deleted() {
    state.withLock { $0.exists = false }
  }

  /// Ends a write (of `version`, when it landed), then reads an announcement that waited for it.
  func finishWrite(version: Int64?, exists: Bool = true) {
    let waiting = state.withLock { state -> Int64? in
      if let version, version > state.known {
        state.known = version
        state.exists = exists
      }
      state.writing -= 1
      guard state.writing == 0, state.waitingAnnouncement > state.known else { return nil }
      defer { state.waitingAnnouncement = 0 }
      return state.waitingAnnouncement
    }
    if let waiting { fetchAnnounced(waiting) }
  }

  /// Starts a write of this process's own (a transaction's, a reset's): announcements wait.
  func beginWrite() -> Int64 {
    state.withLock { state in
      state.writing += 1
      return state.known
    }
  }

  /// The database won: the change not written yet is dropped, its callers told of the conflict.
  private func dropPending() {
    let conflict = TetherError.conflict(key: name, location: store.settings.description)
    writer?.revisePending({ _ in nil }, conflict: { _ in conflict })
  }

  // MARK: Holders

  private var subscribers: [RowSubscriber] {
    state.withLock { Array($0.subscribers.values) }
  }

  func tell(_ content: RowContent) {
    for subscriber in subscribers { subscriber.changed(content) }
  }

  func tellSaved(_ result: Result<Void, any Error>) {
    for subscriber in subscribers { subscriber.saved(result) }
  }

  func subscribe(_ subscriber: RowSubscriber) -> SharedSubscription {
    let id = state.withLock { state in
      defer { state.nextSubscriber += 1 }
      state.subscribers[state.nextSubscriber] = subscriber
      return state.nextSubscriber
    }
    return SharedSubscription { [weak self] in
      _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
  }
}
