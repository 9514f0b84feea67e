public import Synchronization
public import TetherLocking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A lock the thread holding it may take again: an ``UnfairMutex`` plus the owning thread.
///
/// Faster than `NSRecursiveLock` uncontended: the mutex's fast path is an inlined
/// compare-and-swap, where `NSRecursiveLock` calls through Foundation into a recursive
/// `pthread_mutex_t`; and the owner is asked for only when the lock is taken.
@usableFromInline
package struct RecursiveLock: ~Copyable, Sendable {
  @usableFromInline let mutex = UnfairMutex(())
  // Only the owning thread ever stores its own id here, so a relaxed load that sees it is
  // certain that this thread holds the lock; any other value means it does not.
  @usableFromInline let owner = Atomic<UInt>(0)

  package init() {}

  /// Runs `body` holding the lock, taking it only if this thread does not already hold it.
  @inlinable
  package borrowing func withLock<R>(_ body: () throws -> R) rethrows -> R {
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
  package borrowing func withLockNonReentrant<R>(_ body: () -> R) -> R {
    if let result = mutex.withLockIfAvailable({ _ in body() }) { return result }
    return withLock(body)
  }
}
