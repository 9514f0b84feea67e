import Foundation
import Glibc
import Logging
import Tether
import TetherFiles
import TetherLogging
import TetherWatcher

/// One defaults file as this scope sees it: the parsed user and registration files, the holders
/// of each key, and the writes of this process's changes.
///
/// A write takes an `flock` on a sibling lock file, re-reads the file, changes only the keys
/// this process changed, and replaces the file atomically, so processes writing different keys
/// lose nothing. An external edit reaches the holders of the keys whose lines it changed, and
/// wins over a pending local change of those keys.
package final class DefaultsFile: PendingWrites, Sendable {
  /// What the two files hold for a key, the layers of its value: the user's line, then the
  /// registration file's, which a key shows when the user's is absent or does not parse (then
  /// the default).
  struct Lookup: Equatable, Sendable {
    var user: Found
    var registration: Found
  }

  /// What one file holds for a key.
  enum Found: Equatable, Sendable {
    case value(INIValue, line: Int)
    case absent
    /// The key's line does not parse (`invalidValue`), or the whole file cannot be read.
    case unreadable(TetherError)
  }

  /// A change of one key as a write applies it (see ``PendingChange``): its new literal (`nil`:
  /// remove the line), and the line's value this process's holders had seen when they made it
  /// (`nil`: no line). The change is written only if the file still holds `base` for the key:
  /// otherwise someone else changed the key first.
  struct Change: Sendable {
    var literal: INIValue?
    /// `.none` (as for `tether set`): written whatever the file holds.
    let base: INIValue??
  }

  struct Subscriber {
    /// Gives the holders a key's value, and runs `seen` once they have it (see
    /// `SharedSubscriber.give(_:seen:)`).
    let deliver: @Sendable (Lookup, _ seen: () -> Void) -> Void
    let saved: @Sendable (Result<Void, any Error>) -> Void
  }

  /// What holders are told, by key: the keys, each holder with its key's value.
  typealias News = (changed: [String], deliveries: [(name: String, to: Subscriber, Lookup)])

  /// What names the waiter group of one key's changes taken inline.
  final class InlineGroup: Sendable {}

  let path: String
  let registrationPath: String?
  let throttle: Duration
  let state: LockedState<State>
  /// The state, as an object: for tests that check it goes with the file (see ``DefaultsFiles``).
  var stateObject: AnyObject { state }
  /// Taken by whatever changes what this process knows the file holds — a write, a delivery, a
  /// load — so that each applies a read no older than those applied before it. Recursive: a
  /// holder told of a change may make a key of the file, which loads.
  let view: NSRecursiveLock
  let writer: ThrottledWriter<Changes>

  static var logger: Logger { TetherLog.logger("tether.defaults") }
  /// Conflicts (a key's change dropped for an edit of it), said once per key and burst.
  static let conflicts = BurstWarnings(label: "tether.defaults")

  /// The scope's files, told when this one goes.
  private let files: DefaultsFiles
  /// Whose flush writes this file. Its id only: the scope keeps its keys, and so this file.
  private let scope: TetherScope.ID

  init(
    path: String, registration: String?, throttle: Duration, scope: TetherScope.ID,
    files: DefaultsFiles
  ) {
    self.files = files
    self.scope = scope
    self.path = path
    self.registrationPath = registration
    self.throttle = throttle
    // Identities first: a change in between makes the next load read again.
    let (userIdentity, registrationIdentity) = (
      FileIdentity.of(path), registration.flatMap(FileIdentity.of)
    )
    let view = NSRecursiveLock()
    self.view = view
    let state = LockedState(
      State(
        user: Self.read(path), registration: registration.map { Self.read($0) },
        userIdentity: userIdentity, registrationIdentity: registrationIdentity))
    self.state = state
    self.writer = ThrottledWriter(
      module: "tether.defaults", subject: path, throttle: throttle,
      // A newer change of a key keeps the older one's base: the holders' view when the first
      // change not yet written was made (a delivery of the key in between drops that change).
      merge: { older, newer in older.merge(newer) },
      perform: { changes in Self.write(changes, to: path, state: state, view: view) },
      recovered: {
        let everyone = state.withLock { $0.subscribers.values.flatMap(\.values) }
        for subscriber in everyone { subscriber.saved(.success(())) }
      },
      taken: { changes in changes.take() })
    AtomicFile.removeStaleTemporaries(of: path)
    PendingWritesRegistry.register(self, scope: scope)
  }

  deinit {
    files.forget(path)
    PendingWritesRegistry.unregister(ObjectIdentifier(self))
    // The last holder went with a change still to write: it is written now rather than at the
    // window's end, and a flush or the exit still finds it.
    if !writer.isSettled {
      let writer = writer
      PendingWritesRegistry.flushSoon(scope: scope) { writer.flushNow() }
    }
  }

  /// Where `name` has its value now, re-reading a file only when it changed. A change of
  /// `name` this process made and has not written yet is newer than what the file holds: it is
  /// written first (and writes under way are waited for, when this process gave `name` a
  /// value), so the load reads it rather than undoing it (own writes are not echoed).
  func load(_ name: String) -> Lookup {
    let given = state.withLock { $0.given[name]?.serial != nil }
    writer.settle(ifPending: { $0.contains(name) }, waitForWrites: given)
    view.lock()
    defer { view.unlock() }
    let (userIdentity, registrationIdentity) = (
      FileIdentity.of(path), registrationPath.flatMap(FileIdentity.of)
    )
    let (readUser, readRegistration) = state.withLock { state in
      (
        userIdentity == nil || userIdentity != state.userIdentity,
        registrationPath != nil
          && (registrationIdentity == nil || registrationIdentity != state.registrationIdentity)
      )
    }
    let user = readUser ? Self.read(path) : nil
    let registration = readRegistration ? registrationPath.map { Self.read($0) } : nil
    return state.withLock { state in
      if let user {
        state.user = user
        state.userIdentity = userIdentity
      }
      if let registration {
        state.registration = registration
        state.registrationIdentity = registrationIdentity
      }
      let lookup = Self.lookup(name, in: state)
      // The load's value reaches every holder of `name` (they share one reference).
      if state.subscribers[name] != nil { state.told[name] = lookup }
      return lookup
    }
  }

  /// Queues `literal` (or the removal of the line) for key `name`.
  func save(
    _ name: String, literal: INIValue?, immediately: Bool, waiter: WriteWaiter,
    onCaller: ((@escaping @Sendable () -> Void) -> Bool)?
  ) {
    guard
      let (serial, base) = state.withLock({
        $0.change(of: name, given: $0.given(name), orTell: waiter)
      })
    else { return }
    writer.submit(
      Changes(name, PendingChange(value: .literal(literal), serial: serial, base: base)),
      immediately: immediately, waiter: waiter, onCaller: onCaller)
  }

  /// What a key's changes made through `withLock` go through, found once per subscription: the
  /// waiter its holders are told through, and its entry of ``State/given``.
  struct InlineKey: Sendable {
    let name: String
    let waiter: WriteWaiter
    let given: ChangeSerial
  }

  /// Queues a change of `key` made through `withLock`, throttled, its value `latest`'s (see
  /// ``LatestChange``), now `value`; its outcome goes to the holders through their subscriptions.
  func saveInline<V>(_ value: V, through latest: LatestChange<V, INIValue>, to key: InlineKey) {
    guard
      let (serial, base) = state.withLock({
        $0.change(of: key.name, given: key.given, orTell: key.waiter)
      })
    else { return }
    writer.submit(
      Changes(
        key.name,
        PendingChange(
          value: .latest(latest.open(value, serial: serial)), serial: serial, base: base)),
      immediately: false, waiter: key.waiter)
  }

  /// What the changes of `name` taken inline go through. Their waiter is the holders, told
  /// through their subscriptions: one for every such change, in one group, so a burst keeps one.
  func inlineKey(_ name: String) -> InlineKey {
    let shared = state
    return state.withLock { state in
      let given = state.given(name)
      if let made = state.inlineWaiters[name] {
        return InlineKey(name: name, waiter: made.waiter, given: given)
      }
      let group = InlineGroup()
      // The state weakly: it keeps this waiter, which would otherwise keep it, and the file's
      // parsed lines, holders and writes with it, after the file has gone. The writer keeps the
      // state while it has a change to report, and with no state there is no holder to tell.
      let waiter = WriteWaiter(group: ObjectIdentifier(group), part: name) {
        [weak shared] result in
        let holders =
          shared?.withLock { $0.subscribers[name].map { Array($0.values) } ?? [] } ?? []
        for holder in holders { holder.saved(result) }
      }
      state.inlineWaiters[name] = (group, waiter)
      return InlineKey(name: name, waiter: waiter, given: given)
    }
  }

  package func flushNow() { writer.flushNow() }

  /// Tells `deliver` each time the value of `name` changes outside this process's holders.
  func subscribe(
    _ name: String, saved: @escaping @Sendable (Result<Void, any Error>) -> Void,
    deliver: @escaping @Sendable (Lookup, _ seen: () -> Void) -> Void
  ) -> SharedSubscription {
    let (id, needsWatches) = state.withLock { state in
      let id = state.nextSubscriber
      state.nextSubscriber += 1
      state.subscribers[name, default: [:]][id] = Subscriber(deliver: deliver, saved: saved)
      if state.told[name] == nil { state.told[name] = Self.lookup(name, in: state) }
      return (id, state.watches.isEmpty)
    }
    if needsWatches {
      let file = LexicalPath.normalized(path)
      var watches = [
        FileWatcher.shared.watch(
          HashedPath(file), in: HashedPath(LexicalPath.parent(of: file))
        ) { [weak self] change in self?.receive(change.content, user: true, since: change) }
      ]
      if let registrationPath {
        watches.append(
          FileWatcher.shared.watch(registrationPath) { [weak self] content in
            self?.receive(content, user: false, since: nil)
          })
      }
      state.withLock { state in
        guard state.watches.isEmpty && !state.subscribers.isEmpty else { return }
        state.watches = watches
        // The watch counts this process's writes from now on.
        state.ownWritesLanded = 0
      }
    }
    return SharedSubscription { [weak self] in
      guard let self else { return }
      let released = self.state.withLock { state -> [FileWatch] in
        state.subscribers[name]?[id] = nil
        if state.subscribers[name]?.isEmpty == true {
          state.subscribers[name] = nil
          state.told[name] = nil
        }
        guard state.subscribers.isEmpty else { return [] }
        defer { state.watches = [] }
        return state.watches
      }
      for watch in released { watch.cancel() }
    }
  }

  // MARK: - External edits

  /// Takes an edit of the user file (or the registration file, `user` false). `change` is the
  /// user file's change as the watcher read it: dropped when it was read before this process's
  /// latest write, which replaced it (and whose view is newer).
  private func receive(_ content: FileContent, user: Bool, since change: FileChange?) {
    let origin = user ? path : registrationPath ?? path
    let parsed = Self.parse(content, origin: origin)
    view.lock()
    defer { view.unlock() }
    let news = state.withLock { state -> News in
      if let change, change.ownWritesLanded < state.ownWritesLanded { return ([], []) }
      // The identity is unknown here: the next load reads the file again.
      if user {
        state.user = parsed
        state.userIdentity = nil
      } else {
        state.registration = parsed
        state.registrationIdentity = nil
      }
      return Self.news(in: &state)
    }
    let changed = news.changed
    if user, !changed.isEmpty {
      let path = path
      var dropped: [String] = []
      writer.revisePending(
        { pending in
          let (kept, removed) = pending.removing(changed)
          dropped = removed
          return kept
        },
        conflict: { part in
          part.flatMap {
            changed.contains($0) ? TetherError.conflict(key: $0, location: path) : nil
          }
        })
      for name in dropped.sorted() {
        Self.conflicts.warn(
          name,
          "\(path) was edited while a local change of \(name) waited to be written; the file's value wins"
        )
      }
    }
    Self.deliver(news, state: state, path: path)
  }
}
