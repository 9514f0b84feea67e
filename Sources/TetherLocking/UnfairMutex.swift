internal import CTetherLinux
public import Synchronization

/// A lock over a value that a running thread takes as soon as it is free: every lock in Tether.
///
/// Swift's `Mutex` on Linux (Swift 6.3) is a priority-inheritance futex: unlocking it with a
/// thread waiting hands it to that thread, and no other may take it until the kernel has
/// scheduled it (swiftlang/swift#88440). Taken by many threads in turn (one key's `withLock`
/// from a pool of threads, keys made and dropped from many), every acquisition then waits for a
/// wake-up and a context switch, and work that takes milliseconds on one thread takes seconds.
/// This lock is unfair, as glibc's is: unlocking frees it and wakes one waiter, and whichever
/// thread asks first takes it. Uncontended it costs what `Mutex` does: one compare-and-swap to
/// take, one exchange to free.
///
/// The lock word and the value live in one allocation of their own, which gives the word the
/// stable address the kernel's futex calls need; the struct is non-copyable, like `Mutex`, and
/// frees it in `deinit`. Not re-entrant: a thread taking it again waits for itself.
@usableFromInline
package struct UnfairMutex<State>: ~Copyable, @unchecked Sendable {
  // @unchecked: `state` is reached only through `withLock` and `withLockIfAvailable`, under the lock.
  /// 0: free; 1: held; 2: held, and threads may be waiting (its unlock wakes one).
  @usableFromInline let word: UnsafeMutablePointer<Atomic<UInt32>>
  @usableFromInline let state: UnsafeMutablePointer<State>

  /// A free lock over `initial`.
  package init(_ initial: consuming State) {
    let alignment = max(MemoryLayout<Atomic<UInt32>>.alignment, MemoryLayout<State>.alignment)
    let offset =
      (MemoryLayout<Atomic<UInt32>>.size + MemoryLayout<State>.alignment - 1)
      & ~(MemoryLayout<State>.alignment - 1)
    let storage = UnsafeMutableRawPointer.allocate(
      byteCount: offset + MemoryLayout<State>.size, alignment: alignment)
    word = storage.bindMemory(to: Atomic<UInt32>.self, capacity: 1)
    word.initialize(to: Atomic(0))
    state = (storage + offset).bindMemory(to: State.self, capacity: 1)
    state.initialize(to: initial)
  }

  deinit {
    state.deinitialize(count: 1)
    word.deinitialize(count: 1)
    UnsafeMutableRawPointer(word).deallocate()
  }

  /// Runs `body` with the value, holding the lock.
  @inlinable
  package borrowing func withLock<R, E: Error>(
    _ body: (inout State) throws(E) -> R
  ) throws(E) -> R {
    lock()
    defer { unlock() }
    return try body(&state.pointee)
  }

  /// Runs `body` with the value holding the lock if it is free now; `nil` if it is not.
  @inlinable
  package borrowing func withLockIfAvailable<R, E: Error>(
    _ body: (inout State) throws(E) -> R
  ) throws(E) -> R? {
    guard take() else { return nil }
    defer { unlock() }
    return try body(&state.pointee)
  }

  @inlinable
  borrowing func take() -> Bool {
    word.pointee.compareExchange(
      expected: 0, desired: 1, successOrdering: .acquiring, failureOrdering: .relaxed
    ).exchanged
  }

  @inlinable
  borrowing func lock() {
    if !take() { lockContended() }
  }

  @inlinable
  borrowing func unlock() {
    if word.pointee.exchange(0, ordering: .releasing) == 2 { wakeOne() }
  }

  /// The lock was held: spins a little (a holder on another core lets go within a few hundred
  /// nanoseconds), then sleeps until woken. A thread that has slept takes the lock only by
  /// setting 2, so that its unlock wakes the next: no waiter is left asleep on a free lock.
  @usableFromInline
  borrowing func lockContended() {
    for _ in 0..<100 {
      let seen = word.pointee.load(ordering: .relaxed)
      if seen == 0 && take() { return }
      // Threads are asleep already: the lock is busy for longer than a spin.
      if seen == 2 { break }
      tether_spin_pause()
    }
    let address = UnsafeMutableRawPointer(word).assumingMemoryBound(to: UInt32.self)
    while word.pointee.exchange(2, ordering: .acquiring) != 0 {
      tether_futex_wait(address, 2)
    }
  }

  @usableFromInline
  borrowing func wakeOne() {
    tether_futex_wake_one(UnsafeMutableRawPointer(word).assumingMemoryBound(to: UInt32.self))
  }
}
