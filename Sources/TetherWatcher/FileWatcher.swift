import Foundation
import Logging
package import TetherFiles
import TetherLocking
import TetherLogging

/// The one file watcher of the process, shared by every file-backed strategy.
///
/// It watches *directories* (one inotify watch per directory, however many files in it are
/// watched), filters events by file name, checks a file at once when an event ends a write of
/// it (a close after writing, a rename into place) and otherwise lets its burst settle, then
/// delivers its content only when it differs from what was last seen or written by us. Where
/// inotify cannot serve (watch or instance limits, a descriptor ≥ 1024, a network file system)
/// it polls instead, and says why once.
///
/// ```swift
/// let watch = FileWatcher.shared.watch("/home/ada/.local/share/facts/facts.json") { content in
///   // .data(bytes) or .missing, on the watcher's delivery queue
/// }
/// ```
///
/// This type coordinates; the state it guards is in value types that own their rules
/// (``WatchedFiles``, ``WatchedFolders``, ``ThreadHandshake``, ``PollingState``), and the
/// ``WatcherThread`` drives the kernel through the operations in `FileWatcher+Thread.swift`.
/// See `README.md` beside this file.
package final class FileWatcher: Sendable {
  /// The process's watcher, on libinotifytools.
  package static let shared = FileWatcher(backend: .libinotifytools)

  /// A watcher of its own, for a test that counts what a watcher does (watches, folders looked
  /// at) with nothing else in the process watching, or that needs other delays: a settle delay
  /// longer than the test's waits makes what arrives within them come of an event that ended a
  /// write (`maxWait` is at least `settleDelay`). It drives the kernel's inotify calls directly
  /// (libinotifytools allows one instance a process, the shared watcher's); end it with
  /// ``stopForTesting()``.
  package static func makeForTesting(
    settleDelay: Duration = .milliseconds(50), maxWait: Duration = .milliseconds(500)
  ) -> FileWatcher {
    FileWatcher(backend: .kernel, settleDelay: settleDelay, maxWait: max(maxWait, settleDelay))
  }

  /// Which inotify backend the watcher's thread drives.
  enum Backend: Sendable {
    case libinotifytools
    case kernel

    /// A new instance, for the watcher thread alone.
    func make() -> any InotifyBackend {
      switch self {
      case .libinotifytools: return LibInotifyTools()
      case .kernel: return KernelInotify()
      }
    }
  }

  let backend: Backend

  /// How long a file must be quiet before it is checked, unless an event ends a write of it.
  package let settleDelay: Duration
  /// The longest a busy file waits before it is checked anyway.
  package let maxWait: Duration
  /// The longest new bytes wait for a writer that still holds the file open (or has emptied
  /// it) to finish: what such a writer left may be half written (a `cp`, a shell's `>`, an
  /// editor saving in place), and a loaded machine can deschedule it for longer than the
  /// maximum wait.
  package let writerWait: Duration = .seconds(5)
  /// How long a folder keeps its watch after its last watched file goes: a key made and
  /// released again and again (a view's, a command's) would otherwise wait for the watcher
  /// thread to watch the folder each time.
  package let idleFolderLinger: Duration = .seconds(1)

  struct State {
    var files = WatchedFiles()
    var folders = WatchedFolders()
    var handshake = ThreadHandshake()
    var polling = PollingState()
    var hooks = WatcherHooks()
    var counts = Counts()
    var nextSubscriber: UInt64 = 0
  }

  /// What the watcher counts for ``statistics``; none of it steers what the watcher does.
  struct Counts {
    var inotifyWatches = 0
    var ancestorWatches = 0
    var overflows = 0
    var rebuilds = 0
    var examinedDirectories = 0
  }

  let state = UnfairMutex(State())
  let delivery = DispatchQueue(label: "tether.watcher.delivery")
  let control = UnfairMutex<ControlFile?>(nil)
  let resumeSignal = DispatchSemaphore(value: 0)
  let pausedSignal = DispatchSemaphore(value: 0)
  let settler: Settler
  let poller = UnfairMutex<(any DispatchSourceTimer)?>(nil)

  static var logger: Logger { TetherLog.logger("tether.watcher") }

  private init(
    backend: Backend, settleDelay: Duration = .milliseconds(50),
    maxWait: Duration = .milliseconds(500)
  ) {
    self.backend = backend
    self.settleDelay = settleDelay
    self.maxWait = maxWait
    let owner = WeakWatcher()
    settler = Settler(
      queue: delivery, settle: settleDelay, maxWait: maxWait,
      check: { owner.watcher?.check($0, firstEvent: $1) },
      checkEnded: { owner.watcher?.checkEnded($0) })
    owner.set(self)
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
      HashedPath(path), in: HashedPath(LexicalPath.parent(of: path)),
      baseline: baseline.map { FileSnapshot($0) }, readSince: mark,
      deliver: { onChange($0.content) })
  }

  /// ``watch(_:baseline:readSince:onChange:)`` for a path already normalized and hashed, in
  /// `directory` (its parent, hashed), whose changes say how many of this process's writes of
  /// the file had landed when they were read (``FileWatch/ownWritesLanded``): a store that
  /// writes the file drops a change read before its latest write, which that write replaced.
  package func watch(
    _ key: HashedPath, in directory: HashedPath, baseline: FileSnapshot? = nil,
    readSince mark: WatchMark? = nil, deliver onChange: @escaping @Sendable (FileChange) -> Void
  ) -> FileWatch {
    let path = key.string
    var baseline = baseline
    if baseline == nil, !state.withLock({ $0.files.contains(key) }) {
      baseline = FileSnapshot.read(path)
    }
    let (id, waitFor, covered, polled, start) = state.withLock {
      state -> (UInt64, UInt64?, Bool, Bool, Bool) in
      let id = state.nextSubscriber
      state.nextSubscriber += 1
      let start = !state.handshake.started
      state.handshake.started = true
      // Read here only if the entry went away since the check above: a rare race.
      state.files.subscribe(key, in: directory, id: id, deliver: onChange) {
        baseline ?? FileSnapshot.read(path)
      }
      if let fallback = state.polling.fallback {
        state.polling.poll([key], because: fallback)
        return (id, nil, false, true, start)
      }
      // A file joining a polled folder is polled too.
      let polled = state.polling.pollWithSiblings(
        key, siblings: state.polling.isEmpty ? [] : state.folders.files(in: directory))
      let generation = state.folders.add(key, to: directory) { state.handshake.request() }
      // The directory's watch has stood since before the baseline was read, and the thread
      // has taken up no event since: any later change is an event it will find this file for.
      let covered =
        baseline != nil && mark != nil && state.polling.isEmpty
        && mark == state.handshake.mark(of: directory, generation: generation)
      let standing = state.handshake.isStanding(directory, generation: generation)
      return (id, standing ? nil : generation, covered, polled, start)
    }
    if start { startThread() }
    if let generation = waitFor, !watchHere(directory, generation: generation) {
      waitUntilServed(generation)
    }
    // A folder the thread has just served may have had to be polled.
    if polled || waitFor != nil && state.withLock({ $0.polling.isPolled(key) }) {
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
      guard state.polling.fallback == nil, let generation = state.folders.requestedAt(directory)
      else { return nil }
      return state.handshake.mark(of: directory, generation: generation)
    }
  }

  /// What the watcher is doing now.
  package var statistics: WatcherStatistics {
    state.withLock { state in
      WatcherStatistics(
        inotifyWatches: state.counts.inotifyWatches, ancestorWatches: state.counts.ancestorWatches,
        watchedFiles: state.files.count,
        polledPaths: state.polling.paths, fallback: state.polling.fallback,
        overflows: state.counts.overflows, rebuilds: state.counts.rebuilds,
        examinedDirectories: state.counts.examinedDirectories,
        descriptor: state.handshake.descriptor)
    }
  }

  // MARK: - Subscriptions

  func unsubscribe(_ key: HashedPath, id: UInt64) {
    let removal = state.withLock { state -> WatchedFolders.Removal in
      guard let directory = state.files.unsubscribe(key, id: id) else { return .kept }
      let wasPolled = state.polling.remove(key)
      // A polled folder has no watch to keep, and its next file must be polled: it goes now.
      let removal = state.folders.remove(
        key, from: directory, linger: !wasPolled && state.polling.fallback == nil,
        now: DispatchTime.now().uptimeNanoseconds)
      if case .removed = removal { _ = state.handshake.request() }
      return removal
    }
    switch removal {
    case .kept, .idleAlreadyScheduled: break
    case .idle: releaseIdleDirectories(after: idleFolderLinger)
    case .removed: wake()
    }
  }

  /// Releases, once `delay` has passed, the directories idle for ``idleFolderLinger`` by then;
  /// goes on while any are idle.
  private func releaseIdleDirectories(after delay: Duration) {
    delivery.asyncAfter(deadline: .now() + .nanoseconds(Int(delay.nanoseconds))) { [self] in
      let (released, next) = state.withLock { state in
        let outcome = state.folders.releaseIdle(
          now: DispatchTime.now().uptimeNanoseconds, linger: idleFolderLinger.nanoseconds)
        if outcome.released { _ = state.handshake.request() }
        return outcome
      }
      if released { wake() }
      if let next { releaseIdleDirectories(after: .nanoseconds(next)) }
    }
  }
}
