import CInotifyTools
import Foundation
import Glibc
import TetherFiles

/// The loop of a watcher's dedicated OS thread: the only code that calls its inotify backend.
///
/// It blocks for the next event until one or a wake-up (a write to the control file) arrives,
/// applies the requested watches, and turns events for watched files into checks. The events
/// of names in watched folders that are ready together (up to ``batchLimit``) are taken up
/// together, under one lock: a caller adding or cancelling a watch takes the same lock, and
/// the lock hands itself to its waiters in turn, so eight threads doing so all the time made
/// each event wait for eight of them.
///
/// Its state is the thread's alone; what its syncs use (`WatcherThread+Watches.swift`) is
/// internal only so that the two files share it.
final class WatcherThread {
  let watcher: FileWatcher
  private let control: ControlFile
  let backend: any InotifyBackend
  private var controlWatch: Int32 = -1
  /// Watched path (a directory of watched files, or the nearest existing ancestor of a missing
  /// one) → watch descriptor, and back.
  var watches: [String: Int32] = [:]
  var paths: [Int32: String] = [:]
  /// The ancestors of the watched paths (up to `/`, which cannot move) that are not watched
  /// paths themselves, watched only for their moving or going (``Inotify/ancestorMask``), and
  /// back: a folder moved with an ancestor gets no event of its own and is watched where it
  /// went, so the ancestor's event is what tells that every path under it must be looked for
  /// again.
  var ancestorWatches: [String: Int32] = [:]
  var ancestorPaths: [Int32: String] = [:]
  /// Set when an ancestor to watch is one whose watch the kernel dropped (see ``dropped``).
  var ancestorNeedsRebuild = false
  /// The library's inotify descriptor, whose `/proc` entry lists the watches the kernel holds.
  var descriptor: Int32 = -1
  /// Paths whose watch the kernel dropped (the folder deleted, or unmounted), where the backend
  /// keeps a stale entry for each and would hand it to the path's next watch: watching one of
  /// them again starts the backend afresh. Until then the other folders' watches are left alone.
  var dropped: Set<String> = []
  private var renames = Inotify.RenamePairing()
  /// Events of names in watched folders read and not yet taken up (see ``takeUpBatch()``).
  private var batch: [FolderEvent] = []
  /// The most events taken up at once: the lock they are taken up under is held that long.
  private static let batchLimit = 64

  init(watcher: FileWatcher, control: ControlFile, backend: any InotifyBackend) {
    self.watcher = watcher
    self.control = control
    self.backend = backend
  }

  func run() {
    do {
      try start()
    } catch {
      return watcher.fallBack(error)
    }
    guard sync() else { return }
    while true {
      if batch.count >= Self.batchLimit {
        guard takeUpBatch() else { return }
      }
      let event: Inotify.Event?
      do {
        // With a batch, only an event ready now: before waiting, the batch is taken up.
        event = try backend.nextEvent(waiting: batch.isEmpty)
      } catch {
        FileWatcher.logger.error("reading inotify events failed: \(error); re-initialising")
        guard takeUpBatch(), rebuild() else { return }
        continue
      }
      guard let event else {
        guard takeUpBatch() else { return }
        continue
      }
      guard handle(event) else { return }
    }
  }

  /// Initialises the library and watches the control file; throws why polling must be used.
  /// The folders' watches are added by the `sync()` that follows.
  private func start() throws(PollReason) {
    do {
      try backend.initialize()
      controlWatch = try backend.watch(
        control.folder, mask: IN_MODIFY | IN_CREATE | IN_ONLYDIR, isDirectory: true)
    } catch {
      throw PollReason.from(error)
    }
    guard let fd = backend.descriptor(watching: control.inode) else {
      throw PollReason.failed(SystemError(call: "inotify descriptor lookup", code: ENOENT))
    }
    // select() aborts the process on a descriptor past FD_SETSIZE: never wait on one.
    guard fd < FD_SETSIZE else {
      backend.cleanup(drain: false)
      throw PollReason.descriptorTooHigh(fd)
    }
    do {
      try systemCall("fcntl(FD_CLOEXEC)") { fcntl(fd, F_SETFD, FD_CLOEXEC) }
    } catch {
      FileWatcher.logger.warning("cannot set close-on-exec on the inotify descriptor: \(error)")
    }
    descriptor = fd
    watcher.threadStarted(descriptor: fd)
  }

  /// Handles one event; `false` when the thread must stop (polling took over).
  ///
  /// An event of a name in a watched folder joins the batch. Any other is handled alone once
  /// the batch is taken up, so that events are handled in the order the kernel queued them.
  private func handle(_ event: Inotify.Event) -> Bool {
    if event.wd != controlWatch, let path = paths[event.wd], !event.has(IN_Q_OVERFLOW),
      !Self.leftItsPath(event)
    {
      return batchUp(event, in: path)
    }
    guard takeUpBatch() else { return false }
    if event.wd == controlWatch { return handleControl(event) }
    watcher.eventTakenUp()
    if event.has(IN_Q_OVERFLOW) {
      watcher.queueOverflowed()
      // A wake-up may be among the lost events: its caller would wait for the next one.
      return sync(full: false)
    }
    let leftItsPath = Self.leftItsPath(event)
    if let ancestor = ancestorPaths[event.wd] {
      // Other events come only while a caller's own watch of the folder awaits the thread.
      return leftItsPath ? drop(ancestor) : true
    }
    // Unknown descriptors belong to watches removed on purpose (their IN_IGNORED).
    guard let path = paths[event.wd] else { return true }
    return leftItsPath ? drop(path) : batchUp(event, in: path)
  }

  /// Whether `event` says its watch's folder went away (deleted, moved, unmounted, or the
  /// watch removed).
  private static func leftItsPath(_ event: Inotify.Event) -> Bool {
    event.has(IN_IGNORED) || event.has(IN_DELETE_SELF) || event.has(IN_MOVE_SELF)
      || event.has(IN_UNMOUNT)
  }

  /// Adds the event of a name in the watched folder `path` to the batch. A folder's event is
  /// taken up at once: it may be one that watched files wait for, whose sync must come before
  /// the events after it.
  private func batchUp(_ event: Inotify.Event, in path: String) -> Bool {
    let movedFrom = renames.source(of: event)
    batch.append(
      FolderEvent(
        file: path == "/" ? "/" + event.name : path + "/" + event.name,
        writerStillOpen: event.writerStillOpen(movedFrom: movedFrom),
        endsAWrite: event.endsAWrite, isDirectory: event.has(IN_ISDIR)))
    return event.has(IN_ISDIR) ? takeUpBatch() : true
  }

  /// Hands the batch to the watcher, which takes its events up in order; `false` when the sync
  /// a folder's event led to found polling must take over.
  private func takeUpBatch() -> Bool {
    guard !batch.isEmpty else { return true }
    let awaited = watcher.takeUp(batch)
    batch.removeAll(keepingCapacity: true)
    // A directory that watched files wait for (through a watched ancestor) appeared or moved
    // here. One with a watch of its own is served already, and one not yet looked at will be
    // by its wake-up: a folder made for a new key does not make every directory looked at.
    if awaited.contains(where: { watches[$0] == nil }) { return sync() }
    return true
  }

  /// Handles an event in the control folder: a wake-up, or a marker a caller waits for.
  private func handleControl(_ event: Inotify.Event) -> Bool {
    if event.name.hasPrefix(ControlFile.markerPrefix) {
      if let id = UInt64(event.name.dropFirst(ControlFile.markerPrefix.count)) {
        watcher.markerRead(id)
      } else if event.name == ControlFile.pauseName {
        watcher.honourPause()
      }
      return true
    }
    guard event.name == ControlFile.wakeName else { return true }
    if watcher.isStopping {
      backend.cleanup(drain: false)
      return false
    }
    return sync(full: false)
  }

  /// Starts the library afresh and re-adds every watch; `false` if polling had to take over.
  func rebuild() -> Bool {
    backend.cleanup(drain: true)
    watches = [:]
    paths = [:]
    ancestorWatches = [:]
    ancestorPaths = [:]
    ancestorNeedsRebuild = false
    dropped = []
    watcher.rebuilding()
    do {
      try start()
    } catch {
      watcher.fallBack(error)
      return false
    }
    // No watches yet, so this sync only adds: it cannot rebuild again.
    guard sync() else { return false }
    watcher.eventsLost()
    return true
  }
}
