import Dispatch
import Synchronization

/// The write policy both file plugins share: the first change is written at once, later changes
/// in the throttle window merge into one trailing write; writes run on the writer's queue, never
/// on the caller's thread; a failed change stays pending for the next change or flush.
package final class ThrottledWriter<Change: Sendable>: Sendable {
  /// Told once the change it came with is written, dropped or has failed.
  package typealias Completion = @Sendable (Result<Void, any Error>) -> Void

  /// What became of one write.
  package enum Outcome: Sendable {
    case written
    /// An external edit took its place; not a failure.
    case superseded
    /// Worth retrying: the change stays pending.
    case failed(any Error)
    /// Never writable (an unencodable value): the change is dropped.
    case rejected(any Error)
  }

  private struct Pending {
    var change: Change
    var completions: [Completion]
  }

  private struct State {
    var pending: Pending?
    var windowStart: UInt64?
    var timer: UInt64?
    var nextTimer: UInt64 = 0
    /// Writes enqueued or running.
    var queued = 0
    var writes = 0
  }

  private let state = Mutex(State())
  private let queue: DispatchQueue
  private let throttle: UInt64
  private let merge: @Sendable (_ older: inout Change, _ newer: Change) -> Void
  private let perform: @Sendable (Change) -> Outcome
  private let recovered: @Sendable () -> Void

  /// - Parameters:
  ///   - merge: folds a newer change into an older one, in place (a pending change is owned
  ///     uniquely, so large changes merge without copying).
  ///   - perform: writes a change, on the writer's queue.
  ///   - recovered: called when a change kept after a failure is written by a later flush or
  ///     write, whose callers were already told of the failure.
  package init(
    label: String, throttle: Duration,
    merge: @escaping @Sendable (_ older: inout Change, _ newer: Change) -> Void,
    perform: @escaping @Sendable (Change) -> Outcome,
    recovered: @escaping @Sendable () -> Void
  ) {
    self.queue = DispatchQueue(label: label, target: .global())
    self.throttle = throttle.nanoseconds
    self.merge = merge
    self.perform = perform
    self.recovered = recovered
  }

  /// How many writes succeeded, for tests and benchmarks.
  package var writes: Int { state.withLock { $0.writes } }

  /// Takes a change; `immediately` writes it now (an explicit save) instead of throttling.
  package func submit(_ change: Change, immediately: Bool, completion: @escaping Completion) {
    let now = DispatchTime.now().uptimeNanoseconds
    let write = state.withLock { state -> Pending? in
      var merged = Pending(change: change, completions: [completion])
      if var pending = state.pending.take() {
        merge(&pending.change, change)
        pending.completions.append(completion)
        merged = pending
      }
      if immediately || isWindowClosed(state, now: now) && state.queued == 0 {
        state.timer = nil
        if !immediately { state.windowStart = now }
        state.queued += 1
        return merged
      }
      state.pending = merged
      startTimerIfNeeded(&state, now: now)
      return nil
    }
    if let write { queue.async { self.write(write) } }
  }

  /// Lets an external edit win: `transform` drops what the edit superseded from the pending
  /// change (`nil`: all of it, whose callers are told it was superseded, not failed).
  package func revisePending(_ transform: (Change) -> Change?) {
    let superseded = state.withLock { state -> [Completion] in
      guard let pending = state.pending else { return [] }
      if let revised = transform(pending.change) {
        state.pending?.change = revised
        return []
      }
      state.pending = nil
      state.timer = nil
      return pending.completions
    }
    for completion in superseded { completion(.success(())) }
  }

  /// Whether a change waits to be written.
  package var hasPending: Bool { state.withLock { $0.pending != nil } }

  /// Writes any pending change now, on the calling thread.
  package func flushNow() {
    queue.sync {
      let pending = state.withLock { state -> Pending? in
        guard let pending = state.pending else { return nil }
        state.pending = nil
        state.timer = nil
        state.queued += 1
        return pending
      }
      if let pending { write(pending) }
    }
  }

  private func isWindowClosed(_ state: State, now: UInt64) -> Bool {
    guard let start = state.windowStart else { return true }
    return now >= start + throttle
  }

  private func startTimerIfNeeded(_ state: inout State, now: UInt64) {
    guard state.pending != nil, state.timer == nil, state.queued == 0 else { return }
    let end = (state.windowStart ?? now) + throttle
    let id = state.nextTimer
    state.nextTimer += 1
    state.timer = id
    queue.asyncAfter(deadline: .now() + .nanoseconds(Int(end > now ? end - now : 0))) {
      let due = self.state.withLock { state -> Pending? in
        guard state.timer == id, let pending = state.pending else { return nil }
        state.timer = nil
        // The trailing write closes the window: the next change is written at once.
        state.windowStart = nil
        state.pending = nil
        state.queued += 1
        return pending
      }
      if let due { self.write(due) }
    }
  }

  private func write(_ pending: Pending) {
    let outcome = perform(pending.change)
    let now = DispatchTime.now().uptimeNanoseconds
    let next = state.withLock { state -> Pending? in
      state.queued -= 1
      switch outcome {
      case .written: state.writes += 1
      case .superseded, .rejected: break
      case .failed:
        // Nothing is lost: the change waits for the next change or flush.
        var kept = Pending(change: pending.change, completions: [])
        if let newer = state.pending.take() {
          merge(&kept.change, newer.change)
          kept.completions = newer.completions
        }
        state.pending = kept
        return nil
      }
      // Changes made during the write are written after it, never marked clean by it.
      guard state.pending != nil, state.queued == 0, state.timer == nil else { return nil }
      if isWindowClosed(state, now: now) {
        state.windowStart = now
        defer { state.pending = nil }
        state.queued += 1
        return state.pending
      }
      startTimerIfNeeded(&state, now: now)
      return nil
    }
    let result: Result<Void, any Error>
    switch outcome {
    case .written, .superseded: result = .success(())
    case .failed(let error), .rejected(let error): result = .failure(error)
    }
    if case .written = outcome, pending.completions.isEmpty { recovered() }
    for completion in pending.completions { completion(result) }
    if let next { queue.async { self.write(next) } }
  }
}

extension Duration {
  package var nanoseconds: UInt64 {
    let (seconds, attoseconds) = components
    return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
  }
}
