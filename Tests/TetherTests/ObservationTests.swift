import Foundation
import Observation
import Synchronization
import Testing
import Tether
import TetherInMemory
import TetherTesting

@Suite(.tetherBootstrap()) struct ObservationTests {
  /// Runs `body` on a new plain `Thread`, which has no run loop, and returns its result.
  private func onPlainThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: body()) }.start()
    }
  }

  /// Whether `onChange` fired, and on the thread that made the change, before `change`
  /// returned.
  private func firesSynchronously(
    reading read: @escaping @Sendable () -> Void, change: @escaping @Sendable () -> Void
  ) async -> Bool {
    await onPlainThread {
      let firedOn = Mutex<pthread_t?>(nil)
      withObservationTracking {
        read()
      } onChange: {
        firedOn.withLock { $0 = pthread_self() }
      }
      change()
      return firedOn.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }
  }

  @Test func onChangeFiresBeforeWithLockReturns() async throws {
    try await isolated {
      let count = Shared(wrappedValue: 0, .inMemory("count"))
      let fired = await firesSynchronously {
        _ = count.wrappedValue
      } change: {
        count.withLock { $0 += 1 }
      }
      #expect(fired)
    }
  }

  @Test func onChangeFiresBeforeAnExternalYieldReturns() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      let value = Shared(wrappedValue: 0, TestKey("n", storage: storage))
      let fired = await firesSynchronously {
        _ = value.wrappedValue
      } change: {
        storage.externalChange(42)
      }
      #expect(fired)
      #expect(value.wrappedValue == 42)
    }
  }

  @Test func aProjectionIsObservedThroughItsRoot() async throws {
    try await isolated {
      let settings = Shared(wrappedValue: Settings(), .inMemory("settings"))
      let theme = settings.theme
      let fired = await firesSynchronously {
        _ = theme.wrappedValue
      } change: {
        settings.withLock { $0.theme = "dark" }
      }
      #expect(fired)
    }
  }

  @Test func onChangeMayReadTheValue() async throws {
    try await isolated {
      let count = Shared(wrappedValue: 0, .inMemory("count"))
      let seen = Mutex<Int?>(nil)
      withObservationTracking {
        _ = count.wrappedValue
      } onChange: {
        seen.withLock { $0 = count.wrappedValue }
      }
      count.withLock { $0 = 1 }
      // Observation calls onChange from willSet: the read sees the value before the change.
      #expect(seen.withLock { $0 } == 0)
    }
  }

  @Test func errorsAndLoadingAreObservable() async throws {
    try await isolated {
      let storage = TestStorage<Int>()
      let value = Shared(wrappedValue: 0, TestKey("n", storage: storage))
      let fired = await firesSynchronously {
        _ = value.loadError
        _ = value.isLoading
      } change: {
        storage.externalError(Boom())
      }
      #expect(fired)
    }
  }

  // A reference makes its Observation registrar at the first read; changes before it are not
  // told to Observation, which nothing could be tracking yet.
  @Test func changesBeforeTheFirstReadAreKeptAndTheNextIsObserved() async throws {
    try await isolated {
      let count = Shared(wrappedValue: 0, .inMemory("count"))
      for _ in 0..<3 { count.withLock { $0 += 1 } }
      let fired = await firesSynchronously {
        #expect(count.wrappedValue == 3)
      } change: {
        count.withLock { $0 += 1 }
      }
      #expect(fired)
    }
  }

  // The registrar is made at the first read, under the lock changes hold, so a read racing a
  // change sees the new value or is tracked by the registrar the change tells. Observation arms
  // a tracking only once its closure has returned: a change between the read and that moment
  // reaches a registrar with no observer yet (a window any Observable has). The tracking is armed
  // after it, so the next change must reach it; one going to another registrar, or none, would not.
  @Test func aFirstReadRacingAChangeSeesItOrIsToldOfIt() async throws {
    try await isolated {
      for round in 0..<300 {
        let value = Shared(wrappedValue: 0, .inMemory("race.\(round)"))
        let outcome = Mutex((seen: -1, fired: false))
        DispatchQueue.concurrentPerform(iterations: 2) { side in
          guard side == 0 else { return value.withLock { $0 = 1 } }
          var seen = -1
          withObservationTracking {
            seen = value.wrappedValue
          } onChange: {
            outcome.withLock { $0.fired = true }
          }
          outcome.withLock { $0.seen = seen }
        }
        var (seen, fired) = outcome.withLock { $0 }
        if seen != 1 && !fired {
          value.withLock { $0 = 2 }
          fired = outcome.withLock { $0.fired }
        }
        #expect(seen == 1 || fired, "round \(round): read \(seen) and was not told of a change")
      }
    }
  }
}
