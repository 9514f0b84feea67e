import Dispatch
import Synchronization

/// Coalesces bursts of events per file: a file is checked once it has been quiet for the settle
/// delay, or once the maximum wait has passed since its first event, whichever comes first.
///
/// An editor's save (create, write, rename, delete: up to a dozen events) becomes one check of
/// the final content.
final class Settler: Sendable {
  private struct Burst {
    let first: UInt64
    var last: UInt64
  }

  private let queue: DispatchQueue
  private let settle: UInt64
  private let maxWait: UInt64
  private let check: @Sendable (String) -> Void
  private let bursts = Mutex<[String: Burst]>([:])

  init(
    queue: DispatchQueue, settle: Duration, maxWait: Duration,
    check: @escaping @Sendable (String) -> Void
  ) {
    self.queue = queue
    self.settle = settle.nanoseconds
    self.maxWait = maxWait.nanoseconds
    self.check = check
  }

  /// Notes an event for `path`, from any thread.
  func dirty(_ path: String) {
    let now = DispatchTime.now().uptimeNanoseconds
    let isNew = bursts.withLock { bursts in
      if bursts[path] != nil {
        bursts[path]?.last = now
        return false
      }
      bursts[path] = Burst(first: now, last: now)
      return true
    }
    if isNew { schedule(path, after: settle) }
  }

  private func schedule(_ path: String, after delay: UInt64) {
    queue.asyncAfter(deadline: .now() + .nanoseconds(Int(delay))) { [self] in fire(path) }
  }

  private func fire(_ path: String) {
    let now = DispatchTime.now().uptimeNanoseconds
    let remaining = bursts.withLock { bursts -> UInt64? in
      guard let burst = bursts[path] else { return nil }
      let due = min(burst.last + settle, burst.first + maxWait)
      if now >= due {
        bursts[path] = nil
        return 0
      }
      return due - now
    }
    switch remaining {
    case 0: check(path)
    case let wait?: schedule(path, after: wait)
    case nil: break
    }
  }
}
