import Foundation
import Logging
import Synchronization
import Tether
import TetherFiles
import TetherLogging
import TetherWatcher

/// One file's writes and watch, shared by every key of that path and value type in a scope.
///
/// Writes follow the ``ThrottledWriter`` policy; a value is encoded when it is written, on the
/// writer's queue. An external edit wins over a pending local change, which is dropped and
/// logged.
///
/// Not generic: only its methods are, so that making one looks up no generic class's metadata.
/// Still one per value type: the slot in ``FileStores`` is the path and the type.
final class FileStore: PendingWrites, Sendable {
  private typealias State = FileStoreState

  /// The file's resolved path (normalized, so the watcher takes it as it is) and its folder,
  /// hashed once for the watcher's tables.
  let key: HashedPath
  private let directory: HashedPath
  var path: String { key.string }
  let settings: FileStorageSettings

  let state = FileStoreLock()
  /// The state, as an object: for tests that check it goes with the store (see ``FileStores``).
  var stateObject: AnyObject { state }
  /// Whose flush writes this store. Its id only: the scope keeps its keys, and so this store.
  private let scope: TetherScope.ID
  /// The scope's stores, told when this one goes.
  private let stores: FileStores
  /// The value type of its keys, which with the path names its slot in `stores`.
  private let valueType: ObjectIdentifier
  /// Made at the first save: most files are only read, and a writer (two locks, a queue's
  /// worth of state, three closures) is a large part of starting a file key. Held retained
  /// here, released in `deinit`. An `Atomic` rather than an `AtomicLazyReference`, whose
  /// `load()` is not inlined and costs every save two metadata lookups.
  private let writerIfMade = Atomic<Unmanaged<ThrottledWriter<PendingFileChange>>?>(nil)

  var existingWriter: ThrottledWriter<PendingFileChange>? {
    writerIfMade.load(ordering: .acquiring)?.takeUnretainedValue()
  }

  /// The writer, made if need be. Unmanaged: a save reaches it without a retain and release.
  private var writer: Unmanaged<ThrottledWriter<PendingFileChange>> {
    @inline(__always) get { writerIfMade.load(ordering: .acquiring) ?? makeWriter() }
  }

  @inline(never)
  private func makeWriter() -> Unmanaged<ThrottledWriter<PendingFileChange>> {
    let (path, settings, state) = (path, settings, state)
    let made = Unmanaged.passRetained(
      ThrottledWriter<PendingFileChange>(
        module: "tether.file", subject: path, throttle: settings.throttle,
        merge: { PendingFileChange.merge(&$0, $1) },
        perform: { change in
          FileStore.write(change, to: path, settings: settings, state: state)
        },
        recovered: {
          // A change kept after a failure has no caller left to tell: tell the holders.
          FileStore.tellHolders(.success(()), state: state)
        },
        taken: { change in change.take() }))
    let (exchanged, original) = writerIfMade.compareExchange(
      expected: nil, desired: made, ordering: .acquiringAndReleasing)
    guard !exchanged, let original else {
      // Flushes know of a store from its first save on, when it has something to flush.
      PendingWritesRegistry.register(self, scope: scope)
      return made
    }
    // Another thread's save made one first.
    made.release()
    return original
  }

  /// Who waits for the changes taken inline (`withLock`'s): the holders, told through their
  /// subscriptions. One waiter for every such change, made once, in one group: a burst keeps one.
  private let inlineWaiter: WriteWaiter
  /// The serial of the holders' latest change made through `withLock`, while a newer one may
  /// take its value in place (see ``LatestChange``); `nil` once a `save()` numbered a change
  /// after it. (An edit that drops the waiting change has the writer take it, which closes it.)
  let latestSerial = ChangeSerial()

  /// A store of the file at `path` (resolved), in `folder` (its parent), one of `stores`.
  init(
    path: HashedPath, in folder: HashedPath, settings: FileStorageSettings, scope: TetherScope.ID,
    stores: FileStores, valueType: ObjectIdentifier
  ) {
    self.key = path
    self.directory = folder
    self.settings = settings
    self.scope = scope
    self.stores = stores
    self.valueType = valueType
    let state = state
    self.inlineWaiter = WriteWaiter(
      group: ObjectIdentifier(state),
      completion: { result in FileStore.tellHolders(result, state: state) })
    AtomicFile.removeStaleTemporaries(of: path.string)
  }

  deinit {
    stores.forget(path: key, of: valueType)
    PendingWritesRegistry.unregister(ObjectIdentifier(self))
    guard let writer = writerIfMade.load(ordering: .acquiring)?.takeRetainedValue() else { return }
    // The last holder went with a change still to write (a trailing one, or one queued): it is
    // written now rather than at the window's end, and a flush or the exit still finds it.
    if !writer.isSettled { PendingWritesRegistry.flushSoon(scope: scope) { writer.flushNow() } }
  }

  /// How many times the file was written, for tests and benchmarks.
  var writes: Int { existingWriter?.writes ?? 0 }

  static var logger: Logger { TetherLog.logger("tether.file") }
  /// Conflicts (a local change dropped for an edit of the file), said once per file and burst.
  static let conflicts = BurstWarnings(label: "tether.file")

  // MARK: Loading

  /// Resumes `continuation` with the file's value, once this process's own changes are
  /// written: the initial value when there is none (missing or empty); the decoding error when
  /// its bytes are not a value (they are then backed up before a write replaces them).
  ///
  /// Resumes rather than returns: a `Value?` in this unspecialized code has its metadata looked
  /// up at run time.
  func load<Value>(decode: (Data) throws -> Value, into continuation: LoadContinuation<Value>) {
    // A change this process made and has not written yet is newer than what the file holds:
    // written first, so the load reads it rather than undoing it (own writes are not echoed).
    existingWriter?.settle(ifPending: { _ in true })
    let mark = FileWatcher.shared.mark(in: directory)
    let offered = state.withLock { $0.lastRead.take() }
    // What the key read as it opened the file is the file now if the watcher has taken up
    // no event since (a change would be one); otherwise it is read again. Without a mark the
    // folder is not watched, nothing would tell of a change (this process's own write, an
    // editor's), and it is read again too.
    let read =
      if let offered, let mark, offered.mark == mark {
        offered.read
      } else {
        FileSnapshot.read(path)
      }
    let content = read.content
    guard case .data(let data) = content, !data.isEmpty else {
      remember(read, since: mark)
      if case .unreadable(let error) = content { return continuation.resume(throwing: error) }
      return continuation.resumeReturningInitialValue()
    }
    let value: Value
    do {
      value = try decode(data)
    } catch {
      remember(read, since: mark, corrupt: data)
      return continuation.resume(throwing: error)
    }
    remember(read, since: mark, corrupt: nil)
    continuation.resume(returning: value)
  }

  /// Takes the file a key opened as it resolved the path: read now if a load will want it (no
  /// holder watches the file yet), so that the load need not open it again.
  func offer(_ file: consuming OpenedFile) {
    guard state.withLock({ $0.watch == nil }) else { return }
    let mark = file.mark
    let read = file.read()
    state.withLock { $0.lastRead = LastRead(read: read, mark: mark) }
  }

  /// Notes what a load read and where the watcher stood before (in one lock), for the watch
  /// that starts next, if none stands. When it read bytes, `corrupt` is them if they did not
  /// decode — kept to be backed up before a write replaces them — and `nil` if they did.
  private func remember(_ read: FileSnapshot, since mark: WatchMark?, corrupt: Data? = nil) {
    state.withLock { state in
      if state.watch == nil { state.lastRead = LastRead(read: read, mark: mark) }
      if case .data(let data) = read.content, !data.isEmpty { state.corrupt = corrupt }
    }
  }

  // MARK: Saving

  func save<Value>(
    _ value: Value, context: SaveContext, encoder: FileCoder<Value>,
    continuation: SaveContinuation
  ) {
    let serial = number(latest: false)
    // The store holds the writer until it goes, and `self` is alive here.
    writer._withUnsafeGuaranteedRef { writer in
      writer.submit(
        encoder.change(value, serial: serial), immediately: context == .userInitiated,
        waiter: WriteWaiter(
          group: continuation.target, completion: { continuation.resume(with: $0) },
          superseded: { continuation.resumeSuperseded() }),
        onCaller: continuation.runOnCaller)
    }
  }

  /// Tells every subscriber how a write of changes no caller waits for went.
  private static func tellHolders(_ result: Result<Void, any Error>, state: FileStoreLock) {
    for subscriber in state.withLock({ $0.subscribers }) { subscriber.saved(result) }
  }

  /// Takes a change made through `withLock`, throttled, with `value` as the latest value of
  /// `latest`, encoded when it is written; its outcome goes to the subscribers. Their newer
  /// values take its place in `latest` while it waits.
  func saveInline<Value>(_ value: Value, through latest: LatestChange<Value, Data>) {
    let serial = number(latest: true)
    let change = PendingFileChange(
      value: .latest(latest.open(value, serial: serial)), serial: serial)
    writer._withUnsafeGuaranteedRef { writer in
      writer.submit(change, immediately: false, waiter: inlineWaiter)
    }
  }

  /// Numbers a change made now; for one through `withLock` (`latest`), notes it as the one a
  /// newer value may update in place (see ``latestSerial``).
  private func number(latest: Bool) -> UInt64 {
    state.withLock { state in
      let serial = state.nextSerial
      state.nextSerial += 1
      latestSerial.serial = latest ? serial : nil
      return serial
    }
  }

  /// Writes one change, on the writer's queue.
  private static func write(
    _ change: PendingFileChange, to path: String, settings: FileStorageSettings,
    state: FileStoreLock
  ) -> ThrottledWriter<PendingFileChange>.Outcome {
    let data: Data
    do {
      data = try change.encode()
    } catch {
      return .rejected(error)
    }
    // Under the view lock, which deliveries take too: none read before this write is
    // delivered after it.
    state.view.lock()
    defer { state.view.unlock() }
    let (corrupt, watch, editedBefore, lastWrite) = state.withLock {
      ($0.corrupt, $0.watch, $0.editedBefore, $0.lastWrite)
    }
    if let lastWrite, let watch,
      lastWrite.wrote(data, serial: change.serial, landed: watch.ownWritesLanded)
    {
      return .writtenAlready
    }
    // Made before its holders were told of an edit, and taken by this writer before that edit
    // could drop it (as it drops a change still pending): the edit wins over it too.
    guard change.serial >= editedBefore else {
      conflicts.warn(
        path,
        "\(path) was changed on disk while a local change was being written; the file's content wins and the local change is dropped"
      )
      return .conflicted(TetherError.conflict(key: path, location: path))
    }
    do {
      if let corrupt, FileContent.read(path) == .data(corrupt) {
        try keepCorrupt(path, before: "replacing")
      }
      try watch.replacing(with: data) { known in
        try AtomicFile.write(
          data, to: path, durable: settings.durability == .durable, expected: known)
      }
      let landed = watch?.ownWritesLanded
      state.withLock { state in
        state.corrupt = nil
        if let landed { state.ownWritesLanded = landed }
        state.lastWrite = landed.map { LastWrite(data: data, landed: $0) }
      }
      return .written
    } catch is AtomicFile.Conflict {
      conflicts.warn(
        path,
        "\(path) changed on disk before a pending local change was written; the file's content wins and the local change is dropped"
      )
      return .conflicted(TetherError.conflict(key: path, location: path))
    } catch {
      return .failed(error)
    }
  }

  /// Keeps the unreadable file at `path` beside it, as `NAME.corrupt-<UTC time>`, before
  /// `replacing` or `removing` it, and says so: nothing a user wrote is silently destroyed.
  static func keepCorrupt(_ path: String, before doing: String) throws {
    let backup = try AtomicFile.keepCorrupt(path)
    logger.warning("kept the unreadable \(path) as \(backup) before \(doing) it")
  }

  /// Writes any pending change now, on the calling thread.
  func flushNow() { existingWriter?.flushNow() }

  // MARK: Watching

  /// Delivers the file's changes made outside this store to `deliver` until cancelled.
  func subscribe(
    saved: @escaping @Sendable (Result<Void, any Error>) -> Void,
    _ deliver: @escaping @Sendable (FileContent, _ seen: () -> Void) -> Void
  ) -> SharedSubscription {
    let (id, needsWatch) = state.withLock { state in
      let id = state.nextSubscriber
      state.nextSubscriber += 1
      state.subscribers.append(FileStoreSubscriber(id: id, deliver: deliver, saved: saved))
      return (id, state.watch == nil)
    }
    if needsWatch {
      // From here on the watcher's view of the file is the store's: the last read goes to it.
      let lastRead = state.withLock { $0.lastRead.take() }
      let watch = FileWatcher.shared.watch(
        key, in: directory, baseline: lastRead?.read, readSince: lastRead?.mark
      ) { [weak self] change in self?.receive(change) }
      state.withLock { state in
        guard state.watch == nil && !state.subscribers.isEmpty else { return }
        state.watch = watch
        // The watch counts this process's writes from now on.
        state.ownWritesLanded = 0
      }
    }
    return SharedSubscription { [weak self] in
      guard let self else { return }
      let watch = self.state.withLock { state -> FileWatch? in
        state.subscribers.removeAll { $0.id == id }
        guard state.subscribers.isEmpty else { return nil }
        defer { state.watch = nil }
        return state.watch
      }
      watch?.cancel()
    }
  }

  /// An external change: it wins over a local change still waiting for its write, over one
  /// the writer has taken and not yet written, and over one made while it is being delivered
  /// (see ``FileStoreState/editedBefore``).
  /// Dropped when it was read before this process's latest write, which replaced it.
  private func receive(_ change: FileChange) {
    state.view.lock()
    defer { state.view.unlock() }
    // Before `view` is let go: a write waiting for it (a holder's answer to this content)
    // expects to replace this content, not the one it replaced.
    defer { change.handedOver() }
    let content = change.content
    let subscribers = state.withLock { state -> [FileStoreSubscriber] in
      guard change.ownWritesLanded >= state.ownWritesLanded else { return [] }
      if case .data(let data) = content, data != state.corrupt { state.corrupt = nil }
      state.editedBefore = state.nextSerial
      if state.lastWrite?.editedSince == nil { state.lastWrite?.editedSince = state.nextSerial }
      return state.subscribers
    }
    guard !subscribers.isEmpty else { return }
    if let writer = existingWriter, writer.hasPending {
      Self.conflicts.warn(
        path,
        "\(path) was changed on disk while a local change waited to be written; the file's content wins and the local change is dropped"
      )
      let conflict = TetherError.conflict(key: path, location: path)
      writer.revisePending({ _ in nil }, conflict: { _ in conflict })
    }
    // A change made while the holders are being told, before they have the edit, is dropped
    // too, not written over the edit they then show: `editedBefore` moves past it as each
    // holder takes the edit, before any change of theirs can follow. The writer waits for
    // `view` to take such a change up; until then no newer value may join it (`latestSerial`).
    for subscriber in subscribers {
      subscriber.deliver(content) {
        state.withLock { state in
          state.editedBefore = state.nextSerial
          latestSerial.serial = nil
        }
      }
    }
  }

  /// Notes bytes a subscriber could not decode.
  func markCorrupt(_ data: Data) {
    state.withLock { $0.corrupt = data }
  }
}
