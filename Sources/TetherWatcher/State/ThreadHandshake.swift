package import Dispatch
package import TetherFiles

/// What callers and the watcher thread tell each other: which watch requests the thread has
/// served, who waits for which, how many events it has taken up, and the folders whose watch a
/// caller added itself until the thread takes them over. Pure state: the watcher guards it with
/// its lock.
package struct ThreadHandshake {
  /// Nothing watched, requested or polled yet.
  package init() {}

  /// Whether the thread was started (by the first watch).
  package var started = false
  /// Whether the thread is to end (a watcher made for a test, done with).
  package var stopping = false
  /// The library's inotify descriptor, once the thread has found it.
  package var descriptor: Int32?
  package private(set) var requested: UInt64 = 0
  package private(set) var served: UInt64 = 0
  private var waiters: [(generation: UInt64, semaphore: DispatchSemaphore)] = []
  /// Events the thread has taken up, counted before it looks for their file.
  package private(set) var handledEvents: UInt64 = 0
  /// New folders whose kernel watch a caller added itself, with its descriptor, until the
  /// thread's next sync takes them over.
  private var watchedHere: [HashedPath: Int32] = [:]

  /// A new request for the thread; returns its generation.
  package mutating func request() -> UInt64 {
    requested += 1
    return requested
  }

  /// Whether `directory`'s watch, asked for at `generation`, stands: served by the thread, or
  /// added by a caller.
  package func isStanding(_ directory: HashedPath, generation: UInt64) -> Bool {
    served >= generation || watchedHere[directory] != nil
  }

  /// Where the watcher stands for `directory`, once its watch stands.
  package func mark(of directory: HashedPath, generation: UInt64) -> WatchMark? {
    guard isStanding(directory, generation: generation) else { return nil }
    return WatchMark(directoryGeneration: generation, handledEvents: handledEvents)
  }

  /// Notes an event taken up by the thread (or a rebuild, which may have lost some): a mark
  /// from before it no longer vouches that no change went unseen.
  package mutating func eventHandled() { handledEvents += 1 }

  /// Adds `semaphore` to those woken once `generation` is served; `false` if it is already.
  package mutating func wait(for generation: UInt64, _ semaphore: DispatchSemaphore) -> Bool {
    guard served < generation else { return false }
    waiters.append((generation, semaphore))
    return true
  }

  /// Records that every request up to `generation` is applied; returns the callers to wake.
  package mutating func serve(_ generation: UInt64) -> [DispatchSemaphore] {
    served = max(served, generation)
    let ready = waiters.filter { $0.generation <= served }.map(\.semaphore)
    waiters.removeAll { $0.generation <= served }
    return ready
  }

  /// Lets every waiter go (polling took over: nothing will be served); returns them.
  package mutating func releaseAll() -> [DispatchSemaphore] {
    defer { waiters = [] }
    return waiters.map(\.semaphore)
  }

  /// Records the watch `wd` a caller added for `directory`, asked for at `generation`, unless
  /// the thread served it meanwhile (its watch, the same, is counted already). Recorded, it
  /// asks for one more sync, which then sees the watch is its own.
  package mutating func recordWatchedHere(
    _ directory: HashedPath, as wd: Int32, generation: UInt64
  ) -> Bool {
    guard served < generation else { return false }
    watchedHere[directory] = wd
    requested += 1
    return true
  }

  /// Whether the caller that added `directory` watched it as `wd`.
  package func wasWatchedHere(_ directory: HashedPath, as wd: Int32) -> Bool {
    watchedHere[directory] == wd
  }

  package func isWatchedHere(_ directory: HashedPath) -> Bool { watchedHere[directory] != nil }

  /// How many watches callers added that the thread has not taken over.
  package var watchedHereCount: Int { watchedHere.count }

  /// Takes over the watches callers added: those the thread holds as its own (`threadWatch`
  /// gives its descriptor for a path), and those of the `examined` folders. Returns the ones of
  /// examined folders that are not the thread's (the folder replaced since, or no longer
  /// wanted), for the thread to remove.
  package mutating func takeOver(
    examined: [HashedPath], threadWatch: (String) -> Int32?, isThreadWatch: (Int32) -> Bool
  ) -> [Int32] {
    for (directory, wd) in watchedHere where threadWatch(directory.string) == wd {
      watchedHere[directory] = nil
    }
    var strays: [Int32] = []
    for directory in examined {
      guard let wd = watchedHere.removeValue(forKey: directory) else { continue }
      if threadWatch(directory.string) != wd && !isThreadWatch(wd) { strays.append(wd) }
    }
    return strays
  }

  /// Forgets the watches callers added: they went with the library's descriptor.
  package mutating func forgetWatchedHere() { watchedHere = [:] }
}
