import Dispatch
import TetherLocking

/// Where a transaction runs: off Swift's cooperative threads, which must never wait for long,
/// while it may wait for another process to let go of the store's lock.
package enum TransactionThread {
  /// Runs `work` on a dispatch thread and waits for it without holding a thread.
  package static func run<R>(_ work: () throws -> R) async throws -> R {
    try await withoutActuallyEscaping(work) { work in
      let handOver = HandOver(work)
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
          handOver.run()
          continuation.resume()
        }
      }
      return try handOver.result()
    }
  }

  /// Carries `work` to the dispatch thread and its result back. `@unchecked Sendable`: both are
  /// touched only holding `lock`, and the caller is suspended until `work` has run; `work` is
  /// let go before the caller resumes, as `withoutActuallyEscaping` requires.
  private final class HandOver<R>: @unchecked Sendable {
    private let lock = UnfairMutex(())
    private var work: (() throws -> R)?
    private var outcome: Result<R, any Error>?

    init(_ work: @escaping () throws -> R) {
      self.work = work
    }

    /// Runs the work, once, keeping its outcome.
    func run() {
      let work = lock.withLock { _ in
        defer { self.work = nil }
        return self.work
      }
      guard let work else { return }
      let outcome = Result { try work() }
      lock.withLock { _ in self.outcome = outcome }
    }

    /// What the work returned or threw.
    func result() throws -> R {
      try lock.withLock { _ in outcome }!.get()
    }
  }
}

/// One transaction of a value at a time in this process: the others wait, suspended, in order.
final class TransactionTurn: Sendable {
  private struct State {
    var taken = false
    var waiting: [CheckedContinuation<Void, Never>] = []
  }

  private let state = UnfairMutex(State())

  /// Waits until the turn is free, then takes it.
  func take() async {
    await withCheckedContinuation { continuation in
      let free = state.withLock { state in
        guard state.taken else {
          state.taken = true
          return true
        }
        state.waiting.append(continuation)
        return false
      }
      if free { continuation.resume() }
    }
  }

  /// Hands the turn to the next waiter, or frees it.
  func pass() {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard !state.waiting.isEmpty else {
        state.taken = false
        return nil
      }
      return state.waiting.removeFirst()
    }
    next?.resume()
  }
}
