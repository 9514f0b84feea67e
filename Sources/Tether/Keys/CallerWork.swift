import Glibc
import TetherLocking

/// Work a key hands back to the thread that called its `save`, run once that thread has let go
/// of the shared value's lock: an explicit save then writes on the caller's thread, as
/// `UserDefaults.synchronize()` does, without holding up the value's readers meanwhile: the two
/// thread hops of a queued write cost about as much as the write's system calls.
package final class CallerWork: Sendable {
  private struct State {
    var pending: [@Sendable () -> Void] = []
    var isOpen = true
  }

  private let owner = pthread_self()
  private let state = UnfairMutex(State())

  package init() {}

  /// Takes `work` to run after the save call returns; `false` (the work is not taken) on any
  /// thread but the caller's, or once the work has run.
  func take(_ work: @escaping @Sendable () -> Void) -> Bool {
    guard pthread_equal(owner, pthread_self()) != 0 else { return false }
    return state.withLock { state in
      guard state.isOpen else { return false }
      state.pending.append(work)
      return true
    }
  }

  /// Runs what was taken; on the creating thread, after the save call and its locks.
  package func run() {
    precondition(pthread_equal(owner, pthread_self()) != 0, "CallerWork runs on its own thread")
    let work = state.withLock { state in
      state.isOpen = false
      defer { state.pending = [] }
      return state.pending
    }
    for item in work { item() }
  }
}
