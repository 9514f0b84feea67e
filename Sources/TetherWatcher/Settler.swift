import Dispatch
import TetherLocking

/// Coalesces bursts of events per file: a file is checked once it has been quiet for the settle
/// delay, or once the maximum wait has passed since its first event, whichever comes first.
/// An event that ends a write (``ended(_:)``) has the file checked at once instead, besides.
///
/// An editor's save (create, write, rename, delete: up to a dozen events) becomes one check of
/// the final content.
///
/// One timer serves every pending burst, set for the earliest one due: a timer per file would
/// cost a wake-up of Dispatch's timer thread per file, most of a file key's start.
final class Settler: Sendable {
  private struct Burst {
    var first: UInt64
    var last: UInt64
    /// How long after `first` the burst is checked at the latest.
    var limit: UInt64
    /// The burst is not checked before this (uptime nanoseconds), quiet or not.
    var notBefore: UInt64 = 0
  }

  private struct State {
    var bursts: [String: Burst] = [:]
    // Each pending burst by when it was last known to be due: popped in order, and pushed again
    // when an event since then moved it later.
    var queue = DueQueue()
    // When the earliest timer that is set fires; `nil` when none is.
    var timerDue: UInt64?
    // Files whose check at the end of a write is queued and not begun: more such events before
    // it begins are served by it.
    var ended: Set<String> = []

    /// Notes a timer due at `due` unless one set already fires by then; returns when to set one.
    mutating func setTimer(due: UInt64) -> UInt64? {
      if let set = timerDue, set <= due { return nil }
      timerDue = due
      return due
    }
  }

  private let queue: DispatchQueue
  private let settle: UInt64
  private let maxWait: UInt64
  private let check: @Sendable (_ path: String, _ firstEvent: UInt64) -> Void
  private let checkEnded: @Sendable (_ path: String) -> Void
  private let state = UnfairMutex(State())

  /// `check` gets each settled path with when its burst began (in uptime nanoseconds);
  /// `checkEnded` each path whose write ended, on `queue` too.
  init(
    queue: DispatchQueue, settle: Duration, maxWait: Duration,
    check: @escaping @Sendable (_ path: String, _ firstEvent: UInt64) -> Void,
    checkEnded: @escaping @Sendable (_ path: String) -> Void
  ) {
    self.queue = queue
    self.settle = settle.nanoseconds
    self.maxWait = maxWait.nanoseconds
    self.check = check
    self.checkEnded = checkEnded
  }

  /// Notes an event that ended a write of `path` (a close after writing, a rename into place),
  /// from any thread: the file is checked as soon as the queue gets to it, once however many
  /// such events come before then. A burst of the file's other events goes on settling: the
  /// check settles nothing, and what it cannot deliver is left to that burst.
  func ended(_ path: String) {
    guard state.withLock({ $0.ended.insert(path).inserted }) else { return }
    queue.async { [self] in
      // Taken out before the check reads: a write ending after the read is checked again.
      state.withLock { _ = $0.ended.remove(path) }
      checkEnded(path)
    }
  }

  /// Notes an event for `path`, from any thread.
  func dirty(_ path: String) {
    let now = DispatchTime.now().uptimeNanoseconds
    let timer = state.withLock { state -> UInt64? in
      if state.bursts[path] != nil {
        state.bursts[path]?.last = now
        return nil
      }
      state.bursts[path] = Burst(first: now, last: now, limit: maxWait)
      state.queue.push(path, due: now + settle)
      return state.setTimer(due: Self.coalesced(now + settle))
    }
    if let timer { schedule(at: timer) }
  }

  /// Checks `path` again once it has been quiet for the settle delay since its last change,
  /// `changedAgo` nanoseconds ago, and not before `notBefore` (uptime nanoseconds), unless
  /// `limit` has passed since `firstEvent`; returns `false` then, and the caller goes on with
  /// what it read.
  ///
  /// For a check that found the file changed later than its last event said: the events of
  /// that change had not reached the settler yet.
  func postpone(
    _ path: String, firstEvent: UInt64, changedAgo: UInt64, limit: Duration,
    notBefore: UInt64 = 0
  ) -> Bool {
    let now = DispatchTime.now().uptimeNanoseconds
    let limit = limit.nanoseconds
    guard firstEvent + limit > now else { return false }
    let changed = now - min(changedAgo, now)
    let timer = state.withLock { state -> UInt64? in
      var burst = state.bursts[path] ?? Burst(first: firstEvent, last: changed, limit: limit)
      burst.first = min(burst.first, firstEvent)
      burst.last = max(burst.last, changed)
      burst.limit = max(burst.limit, limit)
      burst.notBefore = max(burst.notBefore, notBefore)
      state.bursts[path] = burst
      let due = due(of: burst)
      state.queue.push(path, due: due)
      return state.setTimer(due: Self.coalesced(due))
    }
    if let timer { schedule(at: timer) }
    return true
  }

  /// When `burst` is checked: once quiet for the settle delay, or at its limit; not before
  /// the time it was held to.
  private func due(of burst: Burst) -> UInt64 {
    max(min(burst.last + settle, burst.first + burst.limit), burst.notBefore)
  }

  /// Timers are set on a 0.5 ms grid, so files dirtied together share one wake-up.
  private static func coalesced(_ due: UInt64) -> UInt64 {
    let grid: UInt64 = 500_000
    return (due + grid - 1) / grid * grid
  }

  private func schedule(at due: UInt64) {
    queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: due)) { [self] in fire() }
  }

  /// Checks every burst that is due, and sets the timer for the next one.
  private func fire() {
    let now = DispatchTime.now().uptimeNanoseconds
    let (ready, timer) = state.withLock { state -> ([(String, UInt64)], UInt64?) in
      if let due = state.timerDue, due <= now { state.timerDue = nil }
      var ready: [(String, UInt64)] = []
      while let (path, _) = state.queue.popFirst(dueBy: now) {
        guard let burst = state.bursts[path] else { continue }
        let due = due(of: burst)
        if due <= now {
          ready.append((path, burst.first))
          state.bursts[path] = nil
        } else {
          state.queue.push(path, due: due)
        }
      }
      return (ready, state.queue.firstDue.flatMap { state.setTimer(due: Self.coalesced($0)) })
    }
    if let timer { schedule(at: timer) }
    for (path, firstEvent) in ready { check(path, firstEvent) }
  }
}

/// Paths ordered by when they are due: a binary min-heap.
private struct DueQueue {
  private var entries: [(due: UInt64, path: String)] = []

  var firstDue: UInt64? { entries.first?.due }

  mutating func push(_ path: String, due: UInt64) {
    entries.append((due, path))
    var child = entries.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard entries[child].due < entries[parent].due else { break }
      entries.swapAt(child, parent)
      child = parent
    }
  }

  /// Removes and returns the earliest entry if it is due by `now`.
  mutating func popFirst(dueBy now: UInt64) -> (String, UInt64)? {
    guard let first = entries.first, first.due <= now else { return nil }
    entries.swapAt(0, entries.count - 1)
    entries.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < entries.count, entries[left].due < entries[smallest].due { smallest = left }
      if right < entries.count, entries[right].due < entries[smallest].due { smallest = right }
      if smallest == parent { break }
      entries.swapAt(parent, smallest)
      parent = smallest
    }
    return (first.path, first.due)
  }
}
