import Glibc

/// Work a key hands back to the thread that called its `save`, run once that thread has let go
/// of the shared value's lock: an explicit save then writes on the caller's thread, as
/// `UserDefaults.synchronize()` does, without holding up the value's readers meanwhile
/// (measured: the two thread hops of a queued write cost as much as the write's system calls).
// @unchecked: only the creating thread touches `pending`; `take` refuses every other thread.
package final class CallerWork: @unchecked Sendable {
  private let owner = pthread_self()
  private var pending: [() -> Void] = []
  private var isOpen = true

  package init() {}

  /// Takes `work` to run after the save call returns; `false` (the work is not taken) on any
  /// thread but the caller's, or once the work has run.
  func take(_ work: @escaping () -> Void) -> Bool {
    guard isOpen, pthread_equal(owner, pthread_self()) != 0 else { return false }
    pending.append(work)
    return true
  }

  /// Runs what was taken; on the creating thread, after the save call and its locks.
  package func run() {
    precondition(pthread_equal(owner, pthread_self()) != 0, "CallerWork runs on its own thread")
    isOpen = false
    let work = pending
    pending = []
    for item in work { item() }
  }
}
