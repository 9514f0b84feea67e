import Foundation
import Glibc
import TetherFiles

/// The watcher thread: starting it, waiting for it, and the operations it calls on the state it
/// shares with the callers (it never edits that state itself).
extension FileWatcher {
  /// Starts the watcher thread: once, by the first watch.
  func startThread() {
    do {
      let file = try ControlFile()
      control.withLock { $0 = file }
      let backend = backend
      let thread = Thread {
        WatcherThread(watcher: self, control: file, backend: backend.make()).run()
      }
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
  /// for the watcher thread to. The thread is woken first, so every event of the new watch
  /// queues behind its wake-up, whose sync takes the folder over through the library (the kernel
  /// hands it the same descriptor) before the thread reads them. `false` when it cannot (no
  /// inotify descriptor yet, polling, a folder not there yet, a file system whose remote changes
  /// inotify does not see, no watches left): the caller then waits for the thread, which knows
  /// what to do in each case.
  func watchHere(_ directory: HashedPath, generation: UInt64) -> Bool {
    let descriptor = state.withLock {
      $0.polling.fallback == nil ? $0.handshake.descriptor : nil
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
      guard state.handshake.recordWatchedHere(directory, as: wd, generation: generation) else {
        return false
      }
      state.counts.inotifyWatches += 1
      return true
    }
    // The thread's sync may have taken the folder over just before this: one more sync, which
    // a test's `waitForThread()` waits for, then sees the watch is its own.
    if recorded { wake() }
    return true
  }

  /// Waits until the thread has served every request made so far, and taken over the watches
  /// callers added: for tests that read ``statistics`` after watching.
  package func waitForThread() {
    waitUntilServed(state.withLock { $0.handshake.requested })
  }

  func waitUntilServed(_ generation: UInt64) {
    let semaphore = DispatchSemaphore(value: 0)
    let waits = state.withLock { state in
      state.polling.fallback == nil && state.handshake.wait(for: generation, semaphore)
    }
    guard waits else { return }
    wake()
    semaphore.wait()
  }

  // MARK: - Operations the thread calls

  /// The thread has started the library, whose descriptor is `descriptor`, and watches its
  /// control folder.
  func threadStarted(descriptor: Int32) {
    state.withLock {
      $0.handshake.descriptor = descriptor
      $0.counts.inotifyWatches = 1
    }
  }

  /// The thread takes up an event: counted before it looks for the event's file, so a file
  /// registered meanwhile sees the count move, and checks itself (see ``mark(in:)``).
  func eventTakenUp() {
    state.withLock { $0.handshake.eventHandled() }
  }

  /// The kernel's queue overflowed: every watched file may have changed unseen.
  func queueOverflowed() {
    state.withLock { $0.counts.overflows += 1 }
    eventsLost()
    // The event a test's pause waits at may have been lost with the others.
    honourPause()
  }

  /// Takes up `events` of names in watched folders, in order, under one lock (each counted as
  /// taken up before its file is looked for, as ``eventTakenUp()`` does); returns the folders
  /// waited for that a folder made or moved at one of them may be (only a folder's event can
  /// make one appear).
  ///
  /// An event that ends a write has its file checked at once; any other lets it settle.
  func takeUp(_ events: [FolderEvent]) -> [String] {
    let (watched, tap, awaited) = state.withLock { state in
      var watched: [Bool] = []
      watched.reserveCapacity(events.count)
      var awaited: [String] = []
      for event in events {
        state.handshake.eventHandled()
        watched.append(state.files.noteEvent(event.key, writerStillOpen: event.writerStillOpen))
        if event.isDirectory { awaited += state.folders.awaited(at: event.file) }
      }
      return (watched, state.hooks.eventTap, awaited)
    }
    for (event, isWatched) in zip(events, watched) where isWatched {
      tap?(event.file)
      if event.endsAWrite { settler.ended(event.file) } else { settler.dirty(event.file) }
    }
    return awaited
  }

  /// Plans the thread's next sync (see ``WatchedFolders/planSync(full:isPolled:watchedHere:threadWatches:)``),
  /// and the request generation it serves.
  func planSync(
    full: Bool, threadWatches: (String) -> Bool
  ) -> (plan: WatchedFolders.SyncPlan, generation: UInt64) {
    state.withLock { state in
      let (polling, handshake) = (state.polling, state.handshake)
      let plan = state.folders.planSync(
        full: full, isPolled: polling.isPolled, watchedHere: handshake.isWatchedHere,
        threadWatches: threadWatches)
      state.counts.examinedDirectories += plan.examined.count
      return (plan, handshake.requested)
    }
  }

  /// Ends a sync: the watches callers added for the folders it examined are the thread's now
  /// (`removeStray` removes one that is not), and every request up to `generation` is served.
  /// The thread holds `threadWatchCount` watches, `ancestorWatchCount` of them ancestors'.
  /// Done under the lock that hands the watches over, so no one sees a watch neither a caller's
  /// nor served (``mark(in:)`` would say the folder is not watched).
  func finishSync(
    examined: [HashedPath], generation: UInt64, threadWatch: (String) -> Int32?,
    isThreadWatch: (Int32) -> Bool, threadWatchCount: Int, ancestorWatchCount: Int,
    removeStray: (Int32) -> Void
  ) {
    let ready = state.withLock { state in
      let strays = state.handshake.takeOver(
        examined: examined, threadWatch: threadWatch, isThreadWatch: isThreadWatch)
      for wd in strays { removeStray(wd) }
      state.counts.inotifyWatches = threadWatchCount + 1 + state.handshake.watchedHereCount
      state.counts.ancestorWatches = ancestorWatchCount
      return state.handshake.serve(generation)
    }
    for semaphore in ready { semaphore.signal() }
  }

  /// The thread starts the library afresh: the watches callers added went with its descriptor,
  /// and events may have been lost meanwhile.
  func rebuilding() {
    state.withLock {
      $0.counts.rebuilds += 1
      // Taken for an event: a mark from before it must not vouch that no change went unseen
      // while no watch stood.
      $0.handshake.eventHandled()
      $0.handshake.forgetWatchedHere()
    }
  }

  /// Whether the caller that added `directory` watched it as `wd`: its files were registered
  /// with the watch standing, each checked itself if it had to be, so the thread taking the
  /// watch over need not check them all again.
  func wasWatchedHere(_ directory: HashedPath, as wd: Int32) -> Bool {
    state.withLock { $0.handshake.wasWatchedHere(directory, as: wd) }
  }

  /// Called by the watcher thread before it watches `ancestor` for `directories`.
  func willWatchAncestor(_ ancestor: String, for directories: Set<String>) {
    state.withLock { $0.hooks.ancestorWatch }?(ancestor, directories)
  }

  /// Whether ``stopForTesting()`` asked the thread to end: it does at its next wake-up.
  var isStopping: Bool { state.withLock { $0.handshake.stopping } }

  /// Called by the watcher thread when it reads marker `id`.
  func markerRead(_ id: UInt64) {
    guard let work = state.withLock({ $0.hooks.takeMarker(id) }) else { return }
    delivery.async(execute: work)
  }

  /// Called by the watcher thread at the event ``pauseForTesting()`` queued; blocks while paused.
  func honourPause() {
    guard state.withLock({ $0.hooks.pauseRequested }) else { return }
    pausedSignal.signal()
    resumeSignal.wait()
  }
}
