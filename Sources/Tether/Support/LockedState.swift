import Foundation

/// State guarded by an `NSLock`, for state that `Mutex` cannot hold (non-`Sendable` parts such
/// as `AnyHashable` keys), and because an uncontended `NSLock` is the faster of the two here.
package final class LockedState<State>: @unchecked Sendable {
  // @unchecked: `state` is only reached through `withLock`, under `lock`.
  private let lock = NSLock()
  private var state: State

  package init(_ state: State) {
    self.state = state
  }

  /// Runs `body` with exclusive access to the state; `body` must not re-enter this lock.
  package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}
