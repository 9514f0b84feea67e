import Foundation
import Synchronization
import Testing
import TetherLocking
import TetherTesting

@Suite struct UnfairMutexTests {
  /// A counter that is not atomic: only the lock keeps increments from being lost.
  final class Counter: @unchecked Sendable {
    // @unchecked: `value` is changed only inside the mutex under test.
    var value = 0
  }

  /// Runs `body(thread)` on `threads` threads of their own at once; `false` if they are not all
  /// done within `timeout` (a thread left asleep on a free lock never is).
  static func onThreads(
    _ threads: Int, timeout: Duration = .seconds(60), _ body: @escaping @Sendable (Int) -> Void
  ) async -> Bool {
    let done = Atomic<Int>(0)
    let start = DispatchSemaphore(value: 0)
    for thread in 0..<threads {
      Thread {
        start.wait()
        body(thread)
        done.add(1, ordering: .releasing)
      }.start()
    }
    for _ in 0..<threads { start.signal() }
    let deadline = ContinuousClock.now + timeout
    while done.load(ordering: .acquiring) < threads {
      guard ContinuousClock.now < deadline else { return false }
      do { try await Task.sleep(for: .milliseconds(1)) } catch { return false }
    }
    return true
  }

  @Test func eightThreadsIncrementingUnderTheLockLoseNoIncrement() async {
    let mutex = UnfairMutex(0)
    let finished = await Self.onThreads(8) { _ in
      for _ in 0..<20_000 {
        mutex.withLock { $0 += 1 }
      }
    }
    #expect(finished)
    #expect(mutex.withLock { $0 } == 160_000)
  }

  /// Holders that keep the lock a while make the others sleep in the kernel; each unlock must
  /// wake one of them, or some never finish.
  @Test func threadsThatSleepForTheLockAreAllWoken() async {
    let mutex = UnfairMutex(Counter())
    let finished = await Self.onThreads(16) { _ in
      for round in 0..<200 {
        mutex.withLock { counter in
          counter.value += 1
          // Long enough for the waiters to stop spinning and sleep.
          if round % 10 == 0 { usleep(200) }
        }
      }
    }
    #expect(finished, "a thread waiting for the lock was never woken")
    #expect(mutex.withLock { $0.value } == 3_200)
  }

  @Test func aHeldLockIsNotAvailableToAnotherThreadAndIsOnceFree() async {
    let mutex = UnfairMutex(0)
    let held = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    Thread {
      mutex.withLock { _ in
        held.signal()
        release.wait()
      }
    }.start()
    held.wait()
    #expect(mutex.withLockIfAvailable { $0 += 1 } == nil, "taken while another thread held it")
    release.signal()
    await expectEventually { mutex.withLockIfAvailable { $0 += 1 } != nil }
    #expect(mutex.withLock { $0 } == 1)
  }

  @Test func theValueGoesWithTheLock() {
    weak var gone: Counter?
    do {
      let counter = Counter()
      gone = counter
      let mutex = UnfairMutex(counter)
      mutex.withLock { $0.value = 1 }
    }
    #expect(gone == nil, "the mutex kept its value alive")
  }

  @Test func aValueAlignedWiderThanTheLockWordIsStoredAligned() {
    let mutex = UnfairMutex(SIMD4<Double>(1, 2, 3, 4))
    let alignment = MemoryLayout<SIMD4<Double>>.alignment
    let address = mutex.withLock { value in withUnsafeMutablePointer(to: &value) { $0 } }
    #expect(Int(bitPattern: address) % alignment == 0)
    #expect(mutex.withLock { $0.sum() } == 10)
  }
}
