import Dispatch
import NIOCore
import PostgresNIO
import Tether
import TetherLocking

/// What a row holds, as its holders are told it.
enum RowContent: Sendable {
  /// The row's value, as JSON text.
  case json(String)
  /// No row: holders show their default.
  case missing
}

/// One holder's subscription to a row, typed by the key that made it.
struct RowSubscriber: Sendable {
  /// A change made elsewhere: gives it to the holders, and runs `seen` once they have it (see
  /// `SharedSubscriber.give(_:seen:)`).
  let changed: @Sendable (RowContent, _ seen: () -> Void) -> Void
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
    var knowledge = RowKnowledge()
    var subscribers: [Int: RowSubscriber] = [:]
    var nextSubscriber = 0
  }

  let name: String
  let store: PostgresStore
  private let state = UnfairMutex(State())
  /// The row's throttled writer, held by the handle that owns both.
  private let writerReference = UnfairMutex<WeakWriter>(WeakWriter())
  /// Held while holders are told a value from elsewhere, from learning it to their last
  /// commit: a write judges its change's staleness once no delivery is half done, so a change
  /// made during one is stale, and its conflict is told after the holders show the row's value.
  private let telling = UnfairMutex(())

  private struct WeakWriter {
    weak var writer: ThrottledWriter<RowChange>?
  }

  init(name: String, store: PostgresStore) {
    self.name = name
    self.store = store
  }

  func attach(_ writer: ThrottledWriter<RowChange>) {
    writerReference.withLock { $0.writer = writer }
  }

  private var writer: ThrottledWriter<RowChange>? { writerReference.withLock { $0.writer } }

  // MARK: Reading

  /// Reads the row: its JSON and version, or `nil` when there is none.
  func read(_ done: @escaping @Sendable (Result<RowContent, PostgresFailure>) -> Void) {
    store.link.run(store.statements.fetch(name)).whenComplete { result in
      done(
        result.mapError(PostgresFailure.init).map { rows in
          guard let (json, version) = Self.decode(rows) else { return .missing }
          self.state.withLock { $0.knowledge.loaded((json, version)) }
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
      guard version > state.knowledge.version else { return false }
      guard state.knowledge.writing == 0 else {
        state.knowledge.waitingAnnouncement = max(state.knowledge.waitingAnnouncement, version)
        return false
      }
      return true
    }
    if due { fetchAnnounced(version) }
  }

  private func fetchAnnounced(_ version: Int64) {
    store.link.run(store.statements.fetch(name)).whenComplete { result in
      guard case .success(let rows) = result else { return }  // The link tells of failures.
      let found = Self.decode(rows).map { (json: $0.0, version: $0.1) }
      self.learn { $0.learn(found, announced: version) }
    }
  }

  /// Takes what a read found (`learn` returns what holders are to be told, `nil` when it is
  /// nothing new to them): the change not written yet is dropped and the holders are told,
  /// under ``telling``. Returns whether there was news.
  @discardableResult
  private func learn(_ learn: (inout RowKnowledge) -> RowContent?) -> Bool {
    telling.withLock { _ in
      guard let news = state.withLock({ learn(&$0.knowledge) }) else { return false }
      dropPending()
      for subscriber in subscribers {
        subscriber.changed(news) { state.withLock { $0.knowledge.told() } }
      }
      return true
    }
  }

  /// Returns once no delivery is half done (see ``telling``).
  private func waitForDelivery() {
    telling.withLock { _ in }
  }

  /// After a reconnect: `found` is what the row holds now. A row that moved while the link was
  /// down wins over a change kept meanwhile; one that did not lets the change be written.
  func resynchronized(_ found: (json: String, version: Int64)?) {
    if !learn({ $0.learn(found) }) {
      for subscriber in subscribers { subscriber.recovered() }
    }
    if let writer, writer.hasPending {
      DispatchQueue.global().async { writer.flushNow() }
    }
  }

  /// The server cannot be reached.
  func unavailable(_ failure: PostgresFailure) {
    let error =
      if case .closed = failure {
        TetherError.shutDown(key: name, store: store.settings.description)
      } else {
        TetherError.unreachable(
          key: name, store: store.settings.description, reason: failure.description)
      }
    for subscriber in subscribers { subscriber.unavailable(error) }
  }

  // MARK: Writing

  /// What holders have been told from elsewhere so far: a change made now carries it.
  var epoch: UInt64 { state.withLock { $0.knowledge.epoch } }

  /// Writes `change` over the version this process knows, on the writer's queue (it blocks).
  ///
  /// A change made before holders were told a value from elsewhere is stale: the row's value
  /// wins, as it does over a pending change when it arrives. A row that moved only to the
  /// content this process knows is written over.
  func write(_ change: RowChange) -> ThrottledWriter<RowChange>.Outcome {
    waitForDelivery()
    guard state.withLock({ $0.knowledge.lastWrite != change }) else { return .writtenAlready }
    var (base, stale) = state.withLock { state in
      state.knowledge.writing += 1
      return (state.knowledge.version, change.epoch != state.knowledge.epoch)
    }
    var written: (version: Int64, json: String)?
    do {
      for _ in 0..<3 where !stale {
        written = try writeNow(change.json, base: base)
        if written != nil { break }
        let found = try fetchNow()
        let same = state.withLock { state -> Bool in
          guard let found, found.json == state.knowledge.json,
            change.epoch == state.knowledge.epoch
          else { return false }
          state.knowledge.version = max(state.knowledge.version, found.version)
          return true
        }
        guard same, let found else { break }
        base = found.version
      }
    } catch {
      finishWrite(written: nil)
      let failure = PostgresFailure(error)
      return failure.isRefusal
        ? .rejected(self.error(for: failure)) : .failed(self.error(for: failure))
    }
    stale = written == nil
    finishWrite(written: written, change: change)
    guard !stale else {
      waitForDelivery()  // One that made the change stale mid-write: told after it.
      return .conflicted(TetherError.conflict(key: name, location: store.settings.description))
    }
    return .written
  }

  /// `failure` said of this key: a write the server refused, or a server out of reach.
  func error(for failure: PostgresFailure) -> TetherError {
    if case .closed = failure { return .shutDown(key: name, store: store.settings.description) }
    guard failure.isRefusal else {
      return .unreachable(key: name, store: store.settings.description, reason: failure.description)
    }
    return .notSaved(key: name, reason: "\(store.settings) refused it: \(failure)")
  }

  /// This process deleted the row.
  func deleted() {
    state.withLock { state in
      state.knowledge.json = nil
      state.knowledge.lastWrite = nil
    }
  }

  /// Ends a write (`written`, when it landed; of the writer's `change`, or of a transaction's
  /// without one), then reads an announcement that waited for it.
  func finishWrite(written: (version: Int64, json: String)?, change: RowChange? = nil) {
    let waiting = state.withLock { state -> Int64? in
      if let written {
        state.knowledge.wrote(written.version, json: written.json)
        state.knowledge.lastWrite = change
      }
      state.knowledge.writing -= 1
      let knowledge = state.knowledge
      guard knowledge.writing == 0, knowledge.waitingAnnouncement > knowledge.version else {
        return nil
      }
      state.knowledge.waitingAnnouncement = 0
      return knowledge.waitingAnnouncement
    }
    if let waiting { fetchAnnounced(waiting) }
  }

  /// Starts a write of this process's own (a transaction's, a reset's): announcements wait.
  func beginWrite() {
    state.withLock { $0.knowledge.writing += 1 }
  }

  /// The database won: the change not written yet is dropped, its callers told of the
  /// conflict, and holders too when it was a change kept after a failure (its callers were
  /// told of the failure then, and `saveError` still says it will be written).
  private func dropPending() {
    guard let writer, writer.hasPending else { return }
    let conflict = TetherError.conflict(key: name, location: store.settings.description)
    writer.revisePending({ _ in nil }, conflict: { _ in conflict })
    tellSaved(.failure(conflict))
  }

  // MARK: Holders

  private var subscribers: [RowSubscriber] {
    state.withLock { Array($0.subscribers.values) }
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
