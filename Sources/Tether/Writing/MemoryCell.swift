public import TetherLocking

/// A value kept in memory under a lock of its own: where an in-memory key stores its value,
/// and what its holders store each change in, inline (see
/// ``SharedSubscriber/storeChangesInline(from:in:)``).
///
/// The value is kept in memory of its own rather than in an `Optional<Value>` or an
/// existential, which code not specialized for `Value` would box or look metadata up for;
/// ``store(_:)`` is inlined into a holder's `withLock`, specialized for its value's type.
@usableFromInline
package final class MemoryCell<Value: Sendable>: @unchecked Sendable {
  // @unchecked: `storage`'s memory is read and written only holding `stored`.
  /// Whether a value is stored, kept apart from the value itself: a stored `nil` of an
  /// optional type is a value, and an empty cell must not read as one.
  @usableFromInline let stored = UnfairMutex(false)
  @usableFromInline let storage = UnsafeMutablePointer<Value>.allocate(capacity: 1)

  /// An empty cell.
  package init() {}

  deinit {
    if stored.withLock({ $0 }) { storage.deinitialize(count: 1) }
    storage.deallocate()
  }

  /// The stored value; `nil` when nothing is stored (a stored `nil` is `.some(nil)`).
  package func value() -> Value? {
    stored.withLock { stored in stored ? storage.pointee : nil }
  }

  /// Stores `value` in place of what is stored.
  @inlinable
  package func store(_ value: Value) {
    stored.withLock { stored in
      if stored {
        storage.pointee = value
      } else {
        storage.initialize(to: value)
        stored = true
      }
    }
  }

  /// Empties the cell.
  package func clear() {
    stored.withLock { stored in
      if stored { storage.deinitialize(count: 1) }
      stored = false
    }
  }
}
