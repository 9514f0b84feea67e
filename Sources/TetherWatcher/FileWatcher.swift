import Foundation
import Logging
import Synchronization
package import TetherFiles

/// The one file watcher of the process, shared by every file-backed strategy.
///
/// It watches *directories* (one inotify watch per directory, however many files in it are
/// watched), filters events by file name, lets bursts settle, then re-reads the file and
/// delivers its content only when it differs from what was last seen or written by us. Where
/// inotify cannot serve (watch or instance limits, a descriptor ≥ 1024, a network file system)
/// it polls instead, and says why once.
///
/// ```swift
/// let watch = FileWatcher.shared.watch("/home/ada/.local/share/facts/facts.json") { content in
///   // .data(bytes) or .missing, on the watcher's delivery queue
/// }
/// ```
package final class FileWatcher: Sendable {
  /// The process's watcher.
  package static let shared = FileWatcher()

  /// How long a file must be quiet before it is checked.
  package let settleDelay: Duration = .milliseconds(50)
  /// The longest a busy file waits before it is checked anyway.
  package let maxWait: Duration = .milliseconds(500)
  /// The longest a file its writer has emptied and still holds open waits for the writer's
  /// bytes: such a writer is between truncating and writing (a `cp`, a shell's `>`), and a
  /// loaded machine can deschedule it for longer than the maximum wait.
  package let emptiedWait: Duration = .seconds(5)
  /// How long a folder keeps its watch after its last watched file goes: a key made and
  /// released again and again (a view's, a command's) would otherwise wait for the watcher
  /// thread to watch the folder each time (measured: 115 µs a key instead of 13 µs).
  package let idleFolderLinger: Duration = .seconds(1)

  struct Entry {
    let directory: HashedPath
    var subscribers: FileSubscribers
    var known: FileContent
    var ownWrites: [Data] = []
    /// Whether a process wrote the file in place and has not closed it yet (its last event was
    /// a create or a modification, not a close after writing, a rename or a removal): what it
    /// holds may be half written, such as truncated and not yet filled again.
    var beingWritten = false
    /// Events the thread has read for the file since `known` was taken: an empty file that none
    /// accounts for is being truncated (see `take`).
    var eventsSinceKnown = 0
  }

  struct Directory {
    /// The watched paths in it.
    var files: Set<HashedPath>
    /// The request generation that first asked for it.
    let requestedAt: UInt64
  }

  struct State {
    var files: [HashedPath: Entry] = [:]
    var directories: [HashedPath: Directory] = [:]
    var statistics = WatcherStatistics()
    var requested: UInt64 = 0
    var served: UInt64 = 0
    var waiters: [(generation: UInt64, semaphore: DispatchSemaphore)] = []
    /// What runs on the delivery queue once the thread reads each marker, by its number.
    var markers: [UInt64: @Sendable () -> Void] = [:]
    var nextMarker: UInt64 = 0
    var nextSubscriber: UInt64 = 0
    var started = false
    var pauseRequested = false
    var loggedReasons: Set<String> = []
    var pollInterval: Duration = .seconds(1)
    var eventTap: (@Sendable (String) -> Void)?
    var ancestorWatchHook: (@Sendable (String, Set<String>) -> Void)?
    /// Events the watcher thread has taken up, counted before it looks for their file.
    var handledEvents: UInt64 = 0
    /// Directories added since the thread last made its watches match: adding is most of what
    /// it is asked, and looking at these alone keeps a start with a folder per key linear.
    var addedDirectories: Set<HashedPath> = []
    /// Set when a directory went away: which watches then stand needs every directory.
    var fullSyncNeeded = false
    /// Directories with no watched file left whose watch stands a while longer, by when they
    /// became idle (uptime nanoseconds); a file joining one is watched at once.
    var idleDirectories: [HashedPath: UInt64] = [:]
    var idleReleaseScheduled = false
    /// New directories whose kernel watch a caller added itself (see `watchHere`), with its
    /// descriptor, until the thread's next sync takes them over.
    var watchedHere: [HashedPath: Int32] = [:]
  }

  let state = Mutex(State())
  let delivery = DispatchQueue(label: "tether.watcher.delivery")
  private let control = Mutex<ControlFile?>(nil)
  private let resumeSignal = DispatchSemaphore(value: 0)
  private let pausedSignal = DispatchSemaphore(value: 0)
  let settler: Settler
  private let poller = Mutex<(any DispatchSourceTimer)?>(nil)

  static var logger: Logger { Logger(label: "tether.watcher") }

  private init() {
    // There is only the shared instance, so the settler reaches it directly.
    settler = Settler(queue: delivery, settle: settleDelay, maxWait: maxWait) {
      FileWatcher.shared.check($0, firstEvent: $1)
    }
  }

  /// Delivers every change of the file at `path` (made absolute and standardized) to `onChange`
  /// until the returned watch is cancelled or released.
  ///
  /// Returns once the file is being watched, so any change after this call is delivered.
  ///
  /// `baseline` is the content the caller has just read, if it has; otherwise the watcher reads
  /// the file once for a path it does not watch yet. With the ``mark(_:)`` taken before that
  /// read, the file is checked again only if the watcher may have missed a change since.
  package func watch(
    _ path: String, baseline: FileContent? = nil, readSince mark: WatchMark? = nil,
    onChange: @escaping @Sendable (FileContent) -> Void
  ) -> FileWatch {
    let path = LexicalPath.normalized(path)
    return watch(
      HashedPath(path), in: HashedPath(LexicalPath.parent(of: path)), baseline: baseline,
      readSince: mark, onChange: onChange)
  }

  /// ``watch(_:baseline:readSince:onChange:)`` for a path already normalized and hashed, in
  /// `directory` (its parent, hashed): a store that watches and marks its file again and again
  /// hashes the two once.
  package func watch(
    _ key: HashedPath, in directory: HashedPath, baseline: FileContent? = nil,
    readSince mark: WatchMark? = nil, onChange: @escaping @Sendable (FileContent) -> Void
  ) -> FileWatch {
    let path = key.string
    var baseline = baseline
    if baseline == nil, !state.withLock({ $0.files[key] != nil }) {
      baseline = FileContent.read(path)
    }
    // One pass under the lock, each table looked up once: this is most of a file key's start.
    let (id, waitFor, covered, polled, start) = state.withLock {
      state -> (UInt64, UInt64?, Bool, Bool, Bool) in
      let id = state.nextSubscriber
      state.nextSubscriber += 1
      let start = !state.started
      state.started = true
      if let index = state.files.index(forKey: key) {
        state.files.values[index].subscribers.append(id: id, deliver: onChange)
      } else {
        // Read here only if the entry went away since the check above: a rare race.
        state.files[key] = Entry(
          directory: directory, subscribers: FileSubscribers(id: id, deliver: onChange),
          known: baseline ?? FileContent.read(path))
        state.statistics.watchedFiles += 1
      }
      if let fallback = state.statistics.fallback {
        state.statistics.polledPaths[path] = fallback
        return (id, nil, false, true, start)
      }
      let generation: UInt64
      var polled = false
      if let index = state.directories.index(forKey: directory) {
        // A file joining a polled folder is polled too. (Checked only when something is
        // polled: a copy of the folder's set held across the insert below would copy it.)
        if !state.statistics.polledPaths.isEmpty {
          let polledPaths = state.statistics.polledPaths
          let files = state.directories.values[index].files
          if let reason = files.lazy.compactMap({ polledPaths[$0.string] }).first {
            state.statistics.polledPaths[path] = reason
            polled = true
          }
        }
        state.directories.values[index].files.insert(key)
        if !state.idleDirectories.isEmpty { state.idleDirectories[directory] = nil }
        generation = state.directories.values[index].requestedAt
      } else {
        state.requested += 1
        generation = state.requested
        state.directories[directory] = Directory(files: [key], requestedAt: generation)
        state.addedDirectories.insert(directory)
      }
      // The directory's watch has stood since before the baseline was read, and the thread
      // has taken up no event since: any later change is an event it will find this file for.
      let covered =
        baseline != nil && mark != nil && state.statistics.polledPaths.isEmpty
        && mark == Self.mark(of: directory, generation: generation, in: state)
      let standing = state.served >= generation || state.watchedHere[directory] != nil
      return (id, standing ? nil : generation, covered, polled, start)
    }
    if start { startThread() }
    if let generation = waitFor, !watchHere(directory, generation: generation) {
      waitUntilServed(generation)
    }
    // A folder the thread has just served may have had to be polled.
    if polled || waitFor != nil && state.withLock({ $0.statistics.polledPaths[path] != nil }) {
      startPolling()
    }
    // Covers a change between reading the baseline and the watch taking effect.
    if !covered { settler.dirty(path) }
    return FileWatch(key: key, id: id, watcher: self)
  }

  /// Where the watcher stands for `path`'s directory: take it before reading a baseline to hand
  /// to ``watch(_:baseline:readSince:onChange:)``.
  package func mark(_ path: String) -> WatchMark? {
    mark(in: HashedPath(LexicalPath.parent(of: LexicalPath.normalized(path))))
  }

  /// ``mark(_:)`` for a file in `directory` (normalized and hashed).
  package func mark(in directory: HashedPath) -> WatchMark? {
    state.withLock { state in
      state.directories[directory].flatMap {
        Self.mark(of: directory, generation: $0.requestedAt, in: state)
      }
    }
  }

  /// A mark once `directory`'s watch stands: served by the thread, or added by a caller.
  private static func mark(
    of directory: HashedPath, generation: UInt64, in state: State
  ) -> WatchMark? {
    guard state.served >= generation || state.watchedHere[directory] != nil,
      state.statistics.fallback == nil
    else { return nil }
    return WatchMark(directoryGeneration: generation, handledEvents: state.handledEvents)
  }

  /// What the watcher is doing now.
  package var statistics: WatcherStatistics { state.withLock { $0.statistics } }

  /// Sets how often polled paths are checked (1 s by default).
  package func setPollInterval(_ interval: Duration) {
    state.withLock { $0.pollInterval = interval }
    poller.withLock { timer in
      timer?.schedule(deadline: .now(), repeating: .nanoseconds(Int(interval.nanoseconds)))
    }
  }

  /// Calls `tap` on the watcher thread with the path of each raw event for a watched file,
  /// before any settling: the physical floor for latency benchmarks.
  package func setEventTap(_ tap: (@Sendable (String) -> Void)?) {
    state.withLock { $0.eventTap = tap }
  }

  /// Calls `hook` on the watcher thread just before it watches a folder as the nearest existing
  /// ancestor of folders not made yet, with those folders: a test makes one there, in the gap
  /// between looking for it and the watch that would have seen it made.
  package func setAncestorWatchHookForTesting(_ hook: (@Sendable (String, Set<String>) -> Void)?) {
    state.withLock { $0.ancestorWatchHook = hook }
  }

  /// Called by the watcher thread before it watches `ancestor` for `directories`.
  func willWatchAncestor(_ ancestor: String, for directories: Set<String>) {
    state.withLock { $0.ancestorWatchHook }?(ancestor, directories)
  }

  /// Stops the watcher thread reading events until ``resumeForTesting()``: the kernel queues
  /// them meanwhile, and overflows past 16,384. The thread stops at an event this call queues
  /// behind every earlier one, so the queue then holds only what comes after.
  package func pauseForTesting() {
    guard state.withLock({ $0.started && $0.statistics.fallback == nil }),
      let control = control.withLock({ $0 })
    else { return }
    state.withLock { $0.pauseRequested = true }
    do {
      try control.queuePause()
    } catch {
      Self.logger.error("cannot pause the watcher thread: \(error)")
      state.withLock { $0.pauseRequested = false }
      return
    }
    pausedSignal.wait()
  }

  /// Lets a paused watcher thread go on.
  package func resumeForTesting() {
    let wasPaused = state.withLock { state in
      defer { state.pauseRequested = false }
      return state.pauseRequested
    }
    if wasPaused { resumeSignal.signal() }
  }

  // MARK: - Subscriptions and own writes

  func unsubscribe(_ key: HashedPath, id: UInt64) {
    enum Outcome { case kept, idle, removed }
    let outcome = state.withLock { state -> Outcome in
      guard var entry = state.files[key] else { return .kept }
      entry.subscribers.remove(id: id)
      guard entry.subscribers.isEmpty else {
        state.files[key] = entry
        return .kept
      }
      state.files[key] = nil
      state.statistics.watchedFiles -= 1
      let wasPolled = state.statistics.polledPaths.removeValue(forKey: key.string) != nil
      state.directories[entry.directory]?.files.remove(key)
      guard state.directories[entry.directory]?.files.isEmpty == true else { return .kept }
      // A polled folder has no watch to keep, and its next file must be polled: it goes now.
      if !wasPolled && state.statistics.fallback == nil {
        state.idleDirectories[entry.directory] = DispatchTime.now().uptimeNanoseconds
        let schedule = !state.idleReleaseScheduled
        state.idleReleaseScheduled = true
        return schedule ? .idle : .kept
      }
      state.directories[entry.directory] = nil
      state.fullSyncNeeded = true
      state.requested += 1
      return .removed
    }
    switch outcome {
    case .kept: break
    case .idle: releaseIdleDirectories(after: idleFolderLinger)
    case .removed: wake()
    }
  }

  /// Releases, once `delay` has passed, the directories idle for ``idleFolderLinger`` by then;
  /// goes on while any are idle.
  private func releaseIdleDirectories(after delay: Duration) {
    delivery.asyncAfter(deadline: .now() + .nanoseconds(Int(delay.nanoseconds))) { [self] in
      let (released, next) = state.withLock { state -> (Bool, UInt64?) in
        let now = DispatchTime.now().uptimeNanoseconds
        let linger = idleFolderLinger.nanoseconds
        var released = false
        for (directory, since) in state.idleDirectories where now >= since + linger {
          state.idleDirectories[directory] = nil
          // Still without a file (a joining file takes it out of the idle ones).
          if state.directories[directory]?.files.isEmpty == true {
            state.directories[directory] = nil
            released = true
          }
        }
        if released {
          state.fullSyncNeeded = true
          state.requested += 1
        }
        guard let oldest = state.idleDirectories.values.min() else {
          state.idleReleaseScheduled = false
          return (released, nil)
        }
        let due = oldest + linger
        return (released, due > now ? due - now : 0)
      }
      if released { wake() }
      if let next { releaseIdleDirectories(after: .nanoseconds(next)) }
    }
  }

  func expectOwnWrite(_ key: HashedPath, data: Data) {
    state.withLock { $0.files[key]?.ownWrites.append(data) }
  }

  func recordOwnWrite(_ key: HashedPath, data: Data) {
    state.withLock { state in
      guard let index = state.files.index(forKey: key) else { return }
      state.files.values[index].known = .data(data)
      state.files.values[index].eventsSinceKnown = 0
      if let own = state.files.values[index].ownWrites.firstIndex(of: data) {
        state.files.values[index].ownWrites.remove(at: own)
      }
    }
  }

  func known(_ key: HashedPath) -> FileContent? {
    state.withLock { $0.files[key]?.known }
  }

  func cancelOwnWrite(_ key: HashedPath, data: Data) {
    state.withLock { state in
      if let index = state.files[key]?.ownWrites.firstIndex(of: data) {
        state.files[key]?.ownWrites.remove(at: index)
      }
    }
  }

  // MARK: - Checking and delivering

  /// Re-reads `path` and delivers its content if it is neither what was last seen nor one of
  /// our own writes. Runs on the delivery queue, so deliveries are in order.
  ///
  /// `firstEvent` is when the burst that led here began. New bytes in a file that changed less
  /// than the settle delay ago are read again later (within the maximum wait): the events of
  /// that change may not have reached the settler yet, and the bytes may be a writer's half-done
  /// work, such as a file truncated and not yet written.
  func check(_ path: String, firstEvent: UInt64? = nil, caughtUp: Bool = false) {
    let content = FileContent.read(path)
    var outcome = take(content, of: path, confirmed: firstEvent == nil)
    if case .unconfirmed(let beingWritten) = outcome, let firstEvent {
      let emptied = beingWritten && content == .data(Data())
      if postpone(path, beingWritten: beingWritten, emptied: emptied, firstEvent: firstEvent) {
        return
      }
      // The thread may not have read every event the kernel queued before this read (it lags
      // under load), such as the truncation of a writer that has yet to write: once it has,
      // the file is checked once more.
      if !caughtUp {
        return afterQueuedEvents { [self] in check(path, firstEvent: firstEvent, caughtUp: true) }
      }
      outcome = take(content, of: path, confirmed: true)
    }
    guard case .deliver(let subscribers) = outcome else { return }
    for subscriber in subscribers { subscriber(content) }
  }

  /// Whether new bytes in `path` are to be read again later: while a writer has the file open,
  /// or the file changed less than the settle delay ago (a process descheduled between
  /// truncating and writing leaves the change time as old as the truncation, so the open writer
  /// counts first); within the maximum wait since `firstEvent`.
  ///
  /// A file its writer has `emptied` and still holds open is waited for up to the emptied wait
  /// since it was emptied: the writer is between truncating and writing. (Not since the burst
  /// began: a check held up behind others finds that long past, though the writer may have
  /// truncated a moment ago.)
  private func postpone(
    _ path: String, beingWritten: Bool, emptied: Bool, firstEvent: UInt64
  ) -> Bool {
    let wallClock = UInt64(Date().timeIntervalSince1970 * 1e9)
    if emptied {
      let uptime = DispatchTime.now().uptimeNanoseconds
      let emptiedAgo = FileIdentity.of(path).map { $0.nanosecondsSinceChange(now: wallClock) }
      return settler.postpone(
        path, firstEvent: emptiedAgo.map { uptime - min($0, uptime) } ?? firstEvent,
        changedAgo: 0, limit: emptiedWait)
    }
    let changedAgo =
      beingWritten
      ? 0 : FileIdentity.of(path).map { $0.nanosecondsSinceChange(now: wallClock) }
    return changedAgo.map({ $0 < settleDelay.nanoseconds }) ?? true
      && settler.postpone(
        path, firstEvent: firstEvent, changedAgo: changedAgo ?? 0, limit: maxWait)
  }

  /// Runs `work` on the delivery queue once the watcher thread has handled every event the
  /// kernel queued before the call: the marker it waits for is queued behind them. (Not a
  /// wake-up: the thread may read an earlier one first, still ahead of those events, and serve
  /// every request with it.) Other files' checks go on meanwhile: a thread lagging under load
  /// holds up only the check that waits for it.
  private func afterQueuedEvents(_ work: @escaping @Sendable () -> Void) {
    let id = state.withLock { state -> UInt64? in
      guard state.statistics.fallback == nil else { return nil }
      defer { state.nextMarker += 1 }
      state.markers[state.nextMarker] = work
      return state.nextMarker
    }
    guard let id, let control = control.withLock({ $0 }) else { return work() }
    do {
      try control.queueMarker(id)
    } catch {
      // Without it the check goes on with what the thread has read so far.
      Self.logger.error("cannot queue a marker for the watcher thread: \(error)")
      state.withLock { $0.markers.removeValue(forKey: id) }?()
    }
  }

  /// Called by the watcher thread when it reads marker `id`.
  func markerRead(_ id: UInt64) {
    guard let work = state.withLock({ $0.markers.removeValue(forKey: id) }) else { return }
    delivery.async(execute: work)
  }

  /// Goes on with the work of every marker not read yet: events were lost (the markers among
  /// them, perhaps), and each watched file is now taken as being written.
  func releaseMarkers() {
    let waiting = state.withLock { state in
      defer { state.markers = [:] }
      return Array(state.markers.values)
    }
    for work in waiting { delivery.async(execute: work) }
  }

  private enum CheckOutcome {
    case unchanged
    /// New bytes, not yet taken as known: the caller first asks how recently the file changed,
    /// unless a writer still has it open.
    case unconfirmed(beingWritten: Bool)
    case deliver([@Sendable (FileContent) -> Void])
  }

  /// Takes `content` as what `path` holds, and says whom to tell; new bytes only once `confirmed`.
  private func take(
    _ content: FileContent, of path: String, confirmed: Bool
  ) -> CheckOutcome {
    let key = HashedPath(path)
    return state.withLock { state in
      guard var entry = state.files[key], entry.known != content else { return .unchanged }
      let ownWrite: Bool
      if case .data(let data) = content {
        ownWrite = entry.ownWrites.contains(data)
        // `open(O_TRUNC)` empties a file before it updates the file's times and queues its
        // event (traced: a writer descheduled there had its file delivered empty, the event
        // read 2 ms later): an empty file no event accounts for yet is being truncated.
        let truncating = data.isEmpty && entry.eventsSinceKnown == 0
        if !ownWrite && !confirmed {
          return .unconfirmed(beingWritten: entry.beingWritten || truncating)
        }
      } else {
        ownWrite = false
      }
      entry.known = content
      entry.eventsSinceKnown = 0
      state.files[key] = entry
      return ownWrite ? .unchanged : .deliver(entry.subscribers.deliveries)
    }
  }

  /// Marks the watched files in `folder` and in the folders under it as possibly changed: their
  /// watch went away with `folder`, so events may have been missed.
  func dirtyAll(within folder: String) {
    let prefix = folder.hasSuffix("/") ? folder : folder + "/"
    let paths = state.withLock { state in
      state.directories.filter { $0.key.string == folder || $0.key.string.hasPrefix(prefix) }
        .values.flatMap(\.files)
    }
    for path in paths { settler.dirty(path.string) }
  }

  /// Marks the watched files of `directory` as possibly changed (its watch was just added).
  func dirtyAll(under directory: String) {
    let paths = state.withLock { Array($0.directories[HashedPath(directory)]?.files ?? []) }
    for path in paths { settler.dirty(path.string) }
  }

  /// Marks every watched file as possibly changed after events were lost (an overflow, a
  /// rebuild). Whether a process is writing one in place is unknown then, so each is taken as
  /// being written: new bytes wait for the file's next close or rename, or the maximum wait,
  /// rather than being delivered as a writer may have left them for a moment (truncated).
  func eventsLost() {
    let paths = state.withLock { state in
      for index in state.files.indices { state.files.values[index].beingWritten = true }
      return Array(state.files.keys)
    }
    for path in paths { settler.dirty(path.string) }
    releaseMarkers()
  }

  // MARK: - The thread

  /// Starts the watcher thread: once, by the first watch.
  private func startThread() {
    do {
      let file = try ControlFile()
      control.withLock { $0 = file }
      let thread = Thread { WatcherThread(watcher: self, control: file).run() }
      thread.name = "tether.watcher"
      thread.start()
    } catch {
      fallBack(.failed(error))
    }
  }

  func wake() {
    control.withLock { $0 }?.wake()
  }

  /// Adds the kernel watch of a new directory on the calling thread, which then need not wait
  /// for the watcher thread to (~0.1 ms a folder here: a tenth of starting 10,000 file keys in
  /// 100 folders, measured). The thread is woken first, so every event of the new watch queues
  /// behind its wake-up, whose sync takes the folder over through the library (the kernel hands
  /// it the same descriptor) before the thread reads them. `false` when it cannot (no inotify
  /// descriptor yet, polling, a folder not there yet, a file system whose remote changes
  /// inotify does not see, no watches left): the caller then waits for the thread, which knows
  /// what to do in each case.
  private func watchHere(_ directory: HashedPath, generation: UInt64) -> Bool {
    let descriptor = state.withLock {
      $0.statistics.fallback == nil ? $0.statistics.descriptor : nil
    }
    guard let descriptor, FileSystemKind.remoteName(of: directory.string) == nil else {
      return false
    }
    wake()
    let wd: Int32
    do {
      wd = try systemCall("inotify_add_watch", path: directory.string) {
        inotify_add_watch(descriptor, directory.string, UInt32(bitPattern: Inotify.directoryMask))
      }
    } catch {
      return false
    }
    let recorded = state.withLock { state -> Bool in
      // Served meanwhile: the thread's watch (the same) is counted already.
      guard state.served < generation else { return false }
      state.watchedHere[directory] = wd
      state.statistics.inotifyWatches += 1
      // The thread's sync may have taken the folder over just before this: one more sync, which
      // a test's `waitForThread()` waits for, then sees the watch is its own and stops counting
      // it twice.
      state.requested += 1
      return true
    }
    if recorded { wake() }
    return true
  }

  /// Whether the caller that added `directory` watched it as `wd`: its files were registered
  /// with the watch standing, each checked itself if it had to be, so the thread taking the
  /// watch over need not check them all again.
  func wasWatchedHere(_ directory: HashedPath, as wd: Int32) -> Bool {
    state.withLock { $0.watchedHere[directory] == wd }
  }

  /// Waits until the thread has served every request made so far, and taken over the watches
  /// callers added: for tests that read ``statistics`` after watching.
  package func waitForThread() {
    waitUntilServed(state.withLock { $0.requested })
  }

  private func waitUntilServed(_ generation: UInt64) {
    let semaphore = DispatchSemaphore(value: 0)
    let served = state.withLock { state in
      if state.served >= generation || state.statistics.fallback != nil { return true }
      state.waiters.append((generation, semaphore))
      return false
    }
    guard !served else { return }
    wake()
    semaphore.wait()
  }

  /// Records, for the watcher thread, that every request up to `generation` is applied; returns
  /// the callers to wake once the lock is let go. Done under the lock that hands the folders'
  /// watches over, so no one sees a watch neither a caller's nor served (``mark(_:)`` would say
  /// the folder is not watched).
  static func serve(_ generation: UInt64, in state: inout State) -> [DispatchSemaphore] {
    state.served = max(state.served, generation)
    let ready = state.waiters.filter { $0.generation <= state.served }.map(\.semaphore)
    state.waiters.removeAll { $0.generation <= state.served }
    return ready
  }

  /// Called by the watcher thread at the event ``pauseForTesting()`` queued; blocks while paused.
  func honourPause() {
    guard state.withLock({ $0.pauseRequested }) else { return }
    pausedSignal.signal()
    resumeSignal.wait()
  }

  // MARK: - Polling

  /// Polls every watched file from now on: inotify cannot serve this process.
  func fallBack(_ reason: PollReason) {
    let ready = state.withLock { state -> [DispatchSemaphore] in
      state.statistics.fallback = reason
      state.statistics.inotifyWatches = 0
      for path in state.files.keys { state.statistics.polledPaths[path.string] = reason }
      defer { state.waiters = [] }
      return state.waiters.map(\.semaphore)
    }
    releaseMarkers()
    logOnce(reason, path: nil)
    for semaphore in ready { semaphore.signal() }
    startPolling()
  }

  /// Polls the files in `directory`.
  func poll(directory: String, because reason: PollReason) {
    state.withLock { state in
      for path in state.directories[HashedPath(directory)]?.files ?? [] {
        state.statistics.polledPaths[path.string] = reason
      }
    }
    logOnce(reason, path: directory)
    startPolling()
  }

  /// Stops polling the files in `directory`: inotify serves it again.
  func unpoll(directory: String) {
    state.withLock { state in
      for path in state.directories[HashedPath(directory)]?.files ?? [] {
        state.statistics.polledPaths[path.string] = nil
      }
    }
  }

  private func startPolling() {
    let interval = state.withLock { $0.pollInterval }
    poller.withLock { timer in
      guard timer == nil else { return }
      let source = DispatchSource.makeTimerSource(queue: delivery)
      source.schedule(
        deadline: .now() + .nanoseconds(Int(interval.nanoseconds)),
        repeating: .nanoseconds(Int(interval.nanoseconds)))
      source.setEventHandler { [self] in
        for path in state.withLock({ Array($0.statistics.polledPaths.keys) }) { check(path) }
      }
      source.resume()
      timer = source
    }
  }

  private func logOnce(_ reason: PollReason, path: String?) {
    let first = state.withLock { $0.loggedReasons.insert(reason.description).inserted }
    guard first else { return }
    Self.logger.warning(
      "polling \(path.map { "files in \($0)" } ?? "every watched file") instead of inotify: \(reason)"
    )
  }
}
