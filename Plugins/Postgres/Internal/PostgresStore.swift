import Dispatch
import Logging
import NIOCore
import PostgresNIO
import Synchronization
import Tether
import TetherLocking
import TetherLogging

/// One table on one server, as this process's keys of a scope share it: one connection, the
/// rows its keys hold, and what the link's announcements and outages mean for them.
final class PostgresStore: PostgresLinkDelegate {
  let settings: PostgresSettings
  let statements: PostgresStatements
  let link: PostgresLink
  let scope: TetherScope.ID
  private let handles = UnfairMutex<[String: WeakHandle]>([:])
  /// Whether holders were told the link was down: the next connection re-reads their rows.
  private let missedAnnouncements = Atomic<Bool>(false)

  private struct WeakHandle {
    weak var handle: PostgresRowHandle?
  }

  init(settings: PostgresSettings, scope: TetherScope.ID) {
    self.settings = settings
    self.statements = PostgresStatements(table: settings.table, channel: settings.channel)
    self.link = PostgresLink(settings: settings)
    self.scope = scope
  }

  deinit {
    link.close()
  }

  /// The handle of row `name`, made on first use.
  func handle(named name: String) -> PostgresRowHandle {
    handles.withLock { handles in
      if let live = handles[name]?.handle { return live }
      let made = PostgresRowHandle(row: PostgresRow(name: name, store: self))
      handles[name] = WeakHandle(handle: made)
      return made
    }
  }

  /// Closes the connection for good, and tells holders: their rows are no longer followed,
  /// and what they change from now on is kept in memory with a `saveError` naming the key.
  func shutdown() async {
    await link.shutdown()
    for row in rows { row.unavailable(.closed) }
  }

  /// Forgets row `name` once its handle has gone (and no new one took its place).
  func forget(_ name: String) {
    handles.withLock { handles in
      if handles[name]?.handle == nil { handles.removeValue(forKey: name) }
    }
  }

  private var rows: [PostgresRow] {
    handles.withLock { $0.values.compactMap { $0.handle?.row } }
  }

  // MARK: PostgresLinkDelegate

  func announced(_ payload: String) {
    // `key:version`; a key name has no colon, but split at the last one all the same.
    guard let colon = payload.lastIndex(of: ":"),
      let version = Int64(payload[payload.index(after: colon)...])
    else {
      return Self.strange.warn(
        settings.description,
        "\(settings): an announcement \"\(payload)\" that is not key:version; ignored")
    }
    let name = String(payload[..<colon])
    handles.withLock { $0[name]?.handle }?.row.announced(version)
  }

  func linkConnected() {
    guard missedAnnouncements.exchange(false, ordering: .acquiringAndReleasing) else { return }
    resynchronize()
  }

  func linkLost(_ failure: PostgresFailure) {
    missedAnnouncements.store(true, ordering: .releasing)
    for row in rows { row.unavailable(failure) }
  }

  /// Reads every held row again after the link was down: announcements sent meanwhile were
  /// lost with it.
  private func resynchronize() {
    let rows = self.rows
    guard !rows.isEmpty else { return }
    link.run(statements.fetch(rows.map(\.name))).whenComplete { result in
      guard case .success(let found) = result else {
        // Down again: the next connection reads them.
        self.missedAnnouncements.store(true, ordering: .releasing)
        return
      }
      var current: [String: (json: String, version: Int64)] = [:]
      for row in found {
        do {
          let (name, json, version) = try row.decode((String, String, Int64).self)
          current[name] = (json, version)
        } catch {
          // The statement names three columns of these types: a row that is not so is a
          // server unlike any this code was written for.
          Self.logger.error("\(self.settings): a row read back does not decode: \(error)")
        }
      }
      for row in rows { row.resynchronized(current[row.name]) }
    }
  }

  static var logger: Logger { TetherLog.logger("tether.postgres") }
  private static let strange = BurstWarnings(label: "tether.postgres")
}

/// The current scope's stores, one per server and table, kept while a key holds them.
final class PostgresStores: Sendable {
  private struct WeakStore {
    weak var store: PostgresStore?
  }

  private let stores = UnfairMutex<(live: [PostgresSettings: WeakStore], shutDown: Bool)>(
    ([:], false))
  private let scope: TetherScope.ID

  init(scope: TetherScope.ID) {
    self.scope = scope
  }

  /// The current scope's stores.
  static var current: PostgresStores {
    let scope = TetherScope.current
    return scope.local(PostgresStores.self) { PostgresStores(scope: scope.id) }
  }

  /// The store of `settings`, connecting on first use (never after ``shutdown()``: a store
  /// made then is closed from the start, and its keys fail saying so).
  func store(_ settings: PostgresSettings) -> PostgresStore {
    let (store, made, shutDown) = stores.withLock { stores -> (PostgresStore, Bool, Bool) in
      if let live = stores.live[settings]?.store { return (live, false, stores.shutDown) }
      let made = PostgresStore(settings: settings, scope: scope)
      stores.live[settings] = WeakStore(store: made)
      return (made, true, stores.shutDown)
    }
    guard made else { return store }
    if shutDown { store.link.close() } else { store.link.start(delegate: store) }
    return store
  }

  /// Closes every store of the scope, whichever strategy value made its keys, and returns
  /// once their connections are closed.
  func shutdown() async {
    let live = stores.withLock { stores in
      stores.shutDown = true
      return stores.live.values.compactMap(\.store)
    }
    for store in live { await store.shutdown() }
  }
}
