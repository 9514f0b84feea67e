import TetherLocking

/// State under an ``UnfairMutex`` that several owners share by reference (a registry's
/// resolutions, a defaults file's state handed to its writer): the mutex itself is
/// non-copyable, kept inline by one owner.
package final class LockedState<State>: @unchecked Sendable {
  // @unchecked: `state` is only reached through `withLock`, under the mutex.
  private let state: UnfairMutex<State>

  package init(_ state: State) {
    self.state = UnfairMutex(state)
  }

  /// Runs `body` with exclusive access to the state; `body` must not re-enter this lock.
  package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
    try state.withLock(body)
  }
}
