import Dispatch
import Foundation

/// The write policy both file plugins share: the first change is written at once, later changes
/// in the throttle window merge into one trailing write, run on the writer's queue, never on the
/// caller's thread; a failed change stays pending for the next change or flush. An immediate
/// write (`save()`) with nothing else writing may run on the caller's thread instead, as
/// `UserDefaults.synchronize()` does: two thread hops cost as much as the write's system calls.
///
/// Its owner keeps it, not its timer: an owner that goes with a change pending hands the writer
/// to `PendingWritesRegistry.flushSoon`, which keeps it until that change is written.
// @unchecked: every `var` and the pending slot are only touched while holding `lock`.
package final class ThrottledWriter<Change: Sendable>: @unchecked Sendable {
  // Guarded by `lock`. Plain fields and a slot of memory for the pending change rather than a
  // `Mutex<State>` holding a `Change?`: in unspecialized generic code (every key type) each use
  // of a generic struct or optional looks its metadata up at run time, which would cost more
  // than the rest of a save.
  private let lock = NSLock()
  /// Held while a change is performed, so writes run one at a time and in the order they were
  /// taken: free whenever `queued` is 0.
  private let writing = NSLock()
  private let pendingChange = UnsafeMutablePointer<Change>.allocate(capacity: 1)
  @exclusivity(unchecked) private var hasPendingChange = false
  @exclusivity(unchecked) private var waiters: [WriteWaiter] = []
  /// Changes taken to be written, oldest first, with their waiters: whoever holds `writing`
  /// writes the first (a queued block, an immediate save on its caller's thread, a drain).
  @exclusivity(unchecked) private var queuedChanges: [(Change, [WriteWaiter])] = []
  /// Where each group's waiter is in `waiters`.
  @exclusivity(unchecked) private var groupIndex: [ObjectIdentifier: Int] = [:]
  @exclusivity(unchecked) private var windowStart: UInt64?
  @exclusivity(unchecked) private var timer: UInt64?
  /// The timer block dispatched and not yet run, and when it runs: an immediate write lets go of
  /// the timer but cannot take back the block, which the window's next change then reuses (a
  /// new block per change would be a large part of a `withLock` + `save()`).
  @exclusivity(unchecked) private var scheduled: (id: UInt64, deadline: UInt64)?
  @exclusivity(unchecked) private var timerBlocks = 0
  @exclusivity(unchecked) private var nextTimer: UInt64 = 0
  @exclusivity(unchecked) private var writeCount = 0
  /// Changes taken to be written, and those finished (written, failed or dropped): a flush
  /// waits until every change taken before it is finished.
  @exclusivity(unchecked) private var takenCount = 0
  @exclusivity(unchecked) private var finishedCount = 0
  /// Writes enqueued or running.
  private var queued: Int { takenCount - finishedCount }
  /// Made at the first write: most files are only read, and a queue per file would be a large
  /// part of a file key's start.
  @exclusivity(unchecked) private var queueIfMade: DispatchQueue?
  /// The label of the module whose writer this is (`tether.file`), which it logs through.
  let module: String
  /// What it writes, as errors and the log name it: a file's path, a key's name.
  let subject: String
  private let throttle: UInt64
  private let merge: (@Sendable (_ older: inout Change, _ newer: Change) -> Void)?
  private let perform: @Sendable (Change) -> Outcome
  private let recovered: @Sendable () -> Void
  private let taken: (@Sendable (inout Change) -> Void)?

  /// - Parameters:
  ///   - merge: folds a newer change into an older one, in place (a pending change is owned
  ///     uniquely, so large changes merge without copying); `nil`: the newer replaces the older
  ///     (without a closure call per change).
  ///   - perform: writes a change, on the writer's queue.
  ///   - recovered: called when a change kept after a failure is written by a later flush or
  ///     write, whose callers were already told of the failure.
  ///   - taken: makes the pending change what is written as it stops being pending (taken to
  ///     be written, or dropped whole), under the writer's lock: a ``LatestChange`` in it gives
  ///     its value then and takes no newer one, which goes to a change of its own.
  package init(
    module: String, subject: String, throttle: Duration,
    merge: (@Sendable (_ older: inout Change, _ newer: Change) -> Void)?,
    perform: @escaping @Sendable (Change) -> Outcome,
    recovered: @escaping @Sendable () -> Void,
    taken: (@Sendable (inout Change) -> Void)? = nil
  ) {
    self.module = module
    self.subject = subject
    self.throttle = throttle.nanoseconds
    self.merge = merge
    self.perform = perform
    self.recovered = recovered
    self.taken = taken
  }

  deinit {
    if hasPendingChange { pendingChange.deinitialize(count: 1) }
    pendingChange.deallocate()
  }

  /// How many writes succeeded, for tests and benchmarks.
  package var writes: Int { lock.withLock { writeCount } }

  /// How many timer blocks were dispatched, for tests.
  package var timersDispatched: Int { lock.withLock { timerBlocks } }

  /// Takes a change and who waits for it; `immediately` writes it now instead of throttling.
  ///
  /// - Parameter onCaller: for an immediate write, hands the write to the calling thread to run
  ///   once it has let go of its locks; `false` when it cannot (the write is queued instead).
  package func submit(
    _ change: consuming Change, immediately: Bool, waiter: consuming WriteWaiter,
    onCaller: ((@escaping @Sendable () -> Void) -> Bool)? = nil
  ) {
    lock.lock()
    store(change, waiter: waiter)
    // The trailing write that is due takes this change: the common case in a burst, decided
    // without reading the clock.
    if !immediately, timer != nil { return lock.unlock() }
    let now = DispatchTime.now().uptimeNanoseconds
    guard immediately || isWindowClosed(now: now) && queued == 0 else {
      startTimerIfNeeded(now: now)
      lock.unlock()
      return
    }
    timer = nil
    if !immediately { windowStart = now }
    // Taken before `lock` is let go, so no write taken later can run first.
    let inline = immediately && onCaller != nil && queued == 0 && writing.try()
    enqueuePending()
    let queue = makeQueue()
    lock.unlock()
    if inline {
      if onCaller!({ self.writeNext(holdingWriting: true) }) { return }
      writing.unlock()
    }
    queue.async { self.writeNext() }
  }

  /// Lets an external edit win: `transform` drops what the edit superseded from the pending
  /// change (`nil`: all of it). The callers waiting for what was dropped are told the error
  /// `conflict` gives for their part (``WriteWaiter``'s; for a change dropped whole, every
  /// caller, whatever `conflict` says).
  package func revisePending(
    _ transform: (Change) -> Change?, conflict: (_ part: String?) -> (any Error)?
  ) {
    lock.lock()
    guard hasPendingChange else { return lock.unlock() }
    let dropped: [(WriteWaiter, any Error)]
    if let revised = transform(pendingChange.pointee) {
      pendingChange.pointee = revised
      var kept: [WriteWaiter] = []
      var told: [(WriteWaiter, any Error)] = []
      for waiter in waiters {
        if let error = conflict(waiter.part) {
          told.append((waiter, error))
        } else {
          kept.append(waiter)
        }
      }
      if told.isEmpty { return lock.unlock() }
      waiters = kept
      groupIndex.removeAll(keepingCapacity: true)
      for (index, waiter) in kept.enumerated() {
        if let group = waiter.group { groupIndex[group] = index }
      }
      dropped = told
    } else {
      let (_, superseded) = takePending()
      finishedCount += 1  // Dropped, never to be written.
      timer = nil
      dropped = superseded.map { waiter in
        (waiter, conflict(waiter.part) ?? TetherError.conflict(key: subject, location: subject))
      }
    }
    lock.unlock()
    for (waiter, error) in dropped { waiter.completion(.failure(error)) }
  }

  /// Whether a change waits to be written.
  package var hasPending: Bool { lock.withLock { hasPendingChange } }

  /// Whether every change submitted has been written (or has failed): none pending, none queued.
  package var isSettled: Bool { lock.withLock { !hasPendingChange && queued == 0 } }

  /// Writes any pending change now, on the calling thread, and waits for the writes under way.
  package func flushNow() {
    // No queue: nothing was ever queued or timed.
    let queue = lock.withLock { hasPendingChange ? makeQueue() : queueIfMade }
    queue?.sync {
      lock.lock()
      guard hasPendingChange else { return lock.unlock() }
      timer = nil
      enqueuePending()
      lock.unlock()
      writeNext()
    }
    // A write that finishes takes the changes made meanwhile and queues them after the block
    // above, and an immediate write may be running on its caller's thread: wait for both.
    waitForWrites(on: queue)
  }

  /// Makes what was submitted readable by a load, on the calling thread: writes the pending
  /// change now when `predicate` finds in it what the load reads, and waits for the writes
  /// under way when `waitForWrites` (they may hold it). A pending change of something else
  /// keeps its throttle.
  package func settle(ifPending predicate: (Change) -> Bool, waitForWrites: Bool = true) {
    let (flush, writes, queue) = lock.withLock {
      (hasPendingChange && predicate(pendingChange.pointee), queued > 0, queueIfMade)
    }
    if flush { return flushNow() }
    if writes && waitForWrites { self.waitForWrites(on: queue) }
  }

  /// Waits until every change taken so far has finished: those queued on `queue`, and an
  /// immediate write running on its caller's thread.
  private func waitForWrites(on queue: DispatchQueue?) {
    let taken = lock.withLock { takenCount }
    while lock.withLock({ finishedCount < taken }) {
      queue?.sync {}
      writing.lock()
      writing.unlock()
    }
  }

  // MARK: - Under the lock

  private func makeQueue() -> DispatchQueue {
    if let queueIfMade { return queueIfMade }
    let queue = DispatchQueue(label: "\(module) \(subject)", target: .global())
    queueIfMade = queue
    return queue
  }

  /// Makes `change` pending, merged into what is pending already.
  // Both taken, not borrowed: stored without a copy (a retain here and a release in the caller).
  private func store(_ change: consuming Change, waiter: consuming WriteWaiter) {
    if hasPendingChange {
      if let merge {
        merge(&pendingChange.pointee, change)
      } else {
        pendingChange.pointee = consume change
      }
    } else {
      pendingChange.initialize(to: change)
      hasPendingChange = true
    }
    guard let group = waiter.group else { return waiters.append(waiter) }
    // One value saving again and again is the common case: its waiter is the last, found
    // without hashing. Waiters are read in place and swapped, not copied: a copy retains and
    // releases its closures.
    let last = waiters.count - 1
    let index = last >= 0 && waiters[last].group == group ? last : groupIndex[group]
    guard let index else {
      groupIndex[group] = waiters.count
      return waiters.append(waiter)
    }
    var older = waiter
    swap(&older, &waiters[index])
    older.superseded?()
  }

  /// Removes the pending change (there must be one) and its waiters.
  private func takePending() -> (Change, [WriteWaiter]) {
    hasPendingChange = false
    takenCount += 1
    groupIndex.removeAll(keepingCapacity: true)
    defer { waiters = [] }
    var change = pendingChange.move()
    taken?(&change)
    return (change, waiters)
  }

  /// Moves the pending change (there must be one) behind the changes taken to be written.
  private func enqueuePending() {
    queuedChanges.append(takePending())
  }

  /// The oldest change taken and not written yet.
  private func takeQueued() -> (Change, [WriteWaiter])? {
    queuedChanges.isEmpty ? nil : queuedChanges.removeFirst()
  }

  private func isWindowClosed(now: UInt64) -> Bool {
    guard let start = windowStart else { return true }
    return now >= start + throttle
  }

  private func startTimerIfNeeded(now: UInt64) {
    guard hasPendingChange, timer == nil, queued == 0 else { return }
    let end = (windowStart ?? now) + throttle
    if let scheduled, scheduled.deadline == end {
      timer = scheduled.id
      return
    }
    let id = nextTimer
    nextTimer += 1
    timer = id
    scheduled = (id, end)
    timerBlocks += 1
    // Weakly: a writer whose owner has gone has nothing left for its timer (a flush took its
    // change), and the block would keep it and all its closures hold until the window's end.
    makeQueue().asyncAfter(deadline: .now() + .nanoseconds(Int(end > now ? end - now : 0))) {
      [weak self] in
      guard let self else { return }
      self.lock.lock()
      if self.scheduled?.id == id { self.scheduled = nil }
      guard self.timer == id, self.hasPendingChange else { return self.lock.unlock() }
      self.timer = nil
      // The trailing write closes the window: the next change is written at once.
      self.windowStart = nil
      self.enqueuePending()
      self.lock.unlock()
      self.writeNext()
    }
  }

  // MARK: - On the queue (or inline)

  /// Writes the oldest change taken and not written yet, if any is left: a drain may have
  /// written it already.
  private func writeNext(holdingWriting: Bool = false) {
    if !holdingWriting { writing.lock() }
    guard let (change, waiting) = lock.withLock({ takeQueued() }) else {
      return writing.unlock()
    }
    let outcome = perform(change)
    writing.unlock()
    finish(change, waiting, outcome)()
  }

  /// Writes every change taken or pending, on the calling thread, in order, before returning;
  /// throws the first failure (that change, and any after it, stay pending). What waits for
  /// them is told once the writes are done and no lock of the writer is held.
  ///
  /// A transaction drains its key's writer so that it reads this process's changes, and no
  /// change older than its own is written after it.
  package func drain() throws {
    var told: [() -> Void] = []
    defer { for tell in told { tell() } }
    writing.lock()
    defer { writing.unlock() }
    while let (change, waiting) = lock.withLock({ () -> (Change, [WriteWaiter])? in
      if hasPendingChange {
        timer = nil
        enqueuePending()
      }
      return takeQueued()
    }) {
      let outcome = perform(change)
      told.append(finish(change, waiting, outcome))
      if case .failed(let error) = outcome { throw error }
    }
  }

  /// Records what became of a change and returns what tells its waiters: called right away by
  /// a write, after its lock is let go by a drain.
  private func finish(
    _ change: Change, _ waiting: [WriteWaiter], _ outcome: Outcome
  ) -> () -> Void {
    let now = DispatchTime.now().uptimeNanoseconds
    lock.lock()
    finishedCount += 1
    var next = false
    switch outcome {
    case .written, .writtenAlready, .partlyWritten, .conflicted, .rejected:
      switch outcome {
      case .written, .partlyWritten: writeCount += 1
      default: break
      }
      // Changes made during the write are written after it, never marked clean by it.
      if hasPendingChange, queued == 0, timer == nil {
        if isWindowClosed(now: now) {
          windowStart = now
          enqueuePending()
          next = true
        } else {
          startTimerIfNeeded(now: now)
        }
      }
    case .failed:
      // Nothing is lost: the change waits for the next change or flush, under any newer one.
      if hasPendingChange {
        // Without a merge the newer change replaces the failed one: it stays as it is.
        if let merge {
          var kept = change
          merge(&kept, pendingChange.move())
          pendingChange.initialize(to: kept)
        }
      } else {
        pendingChange.initialize(to: change)
        hasPendingChange = true
      }
    }
    let queue = next ? makeQueue() : nil
    lock.unlock()
    return { self.tell(waiting, outcome, thenWriteOn: queue) }
  }

  /// Tells `waiting` what became of their change, then queues the next write, if one is due.
  private func tell(
    _ waiting: [WriteWaiter], _ outcome: Outcome, thenWriteOn queue: DispatchQueue?
  ) {
    switch outcome {
    case .written, .writtenAlready: if waiting.isEmpty { recovered() }
    default: break
    }
    warnIfFailed(outcome)
    for waiter in waiting { waiter.completion(outcome.result(for: waiter.part)) }
    if let queue { queue.async { self.writeNext() } }
  }
}
