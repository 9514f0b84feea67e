public import Synchronization

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
@usableFromInline
package final class RecursiveLock: Sendable {
  @usableFromInline let mutex = Mutex(())
  // Only the owning thread ever stores its own id here, so a relaxed load that sees it is
  // certain that this thread holds the lock; any other value means it does not.
  @usableFromInline let owner = Atomic<UInt>(0)

  package init() {}

  /// Runs `body` holding the lock, taking it only if this thread does not already hold it.
  @inlinable
  package func withLock<R>(_ body: () throws -> R) rethrows -> R {
    let me = Self.currentThread()
    if owner.load(ordering: .relaxed) == me { return try body() }
    return try mutex.withLock { _ in
      owner.store(me, ordering: .relaxed)
      defer { owner.store(0, ordering: .relaxed) }
      return try body()
    }
  }

  @usableFromInline
  static func currentThread() -> UInt { UInt(pthread_self()) }

  /// Runs `body`, which must not take this lock again, holding the lock.
  ///
  /// Inlined where a value is read: when the lock is free it is one compare-and-swap, without
  /// asking for this thread's id; only a lock that is taken needs to know whether by this thread.
  @inlinable
  package func withLockNonReentrant<R>(_ body: () -> R) -> R {
    if let result = mutex.withLockIfAvailable({ _ in body() }) { return result }
    return withLock(body)
  }
}
