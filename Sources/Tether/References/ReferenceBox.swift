public import Synchronization

/// The cell that every copy of one `Shared` (or `SharedReader`) holds, so re-keying through
/// `projectedValue` re-keys every copy, and `changes` streams follow the new key.
///
/// Every read of a shared value passes here, so reading the current reference takes no lock:
/// it is one atomic load of the newest node. Re-keying keeps the earlier nodes until the cell
/// itself goes, so a read that loaded one just before never sees it freed. An earlier reference
/// keeps its memory only: its lifetime is let go at once, so it stops following its key and
/// leaves the table of live references.
@usableFromInline
package final class ReferenceBox<Value: Sendable, Ref: Sendable>: @unchecked Sendable {
  // @unchecked: `newest`, `retired`, `lifetime`, `listeners` and `nextListener` are only
  // touched while holding `lock`; `head` is atomic and only points at nodes kept alive there.
  @usableFromInline let head: Atomic<Unmanaged<Node>>
  private let lock = Mutex(())
  private var newest: Node
  private var retired: [Node] = []
  private var lifetime: ReferenceLifetime?
  private var listeners: [UInt64: Listener] = [:]
  private var nextListener: UInt64 = 0
  private let observe: @Sendable (Ref, @escaping @Sendable (Value) -> Void) -> SharedSubscription

  @usableFromInline
  final class Node: Sendable {
    @usableFromInline let reference: Ref
    /// The same reference when it is a stored one, so reads of it can be specialized; unmanaged
    /// because `reference` keeps it alive, and a read then neither retains nor releases it.
    @usableFromInline let stored: Unmanaged<StoredReference<Value>>?

    init(_ reference: Ref) {
      self.reference = reference
      self.stored = (reference as? StoredReference<Value>).map { Unmanaged.passUnretained($0) }
    }
  }

  private struct Listener {
    let callback: @Sendable (Value) -> Void
    var subscription: SharedSubscription
  }

  package init(
    _ reference: Ref, lifetime: ReferenceLifetime?,
    observe: @escaping @Sendable (Ref, @escaping @Sendable (Value) -> Void) -> SharedSubscription
  ) {
    let node = Node(reference)
    self.newest = node
    self.head = Atomic(Unmanaged.passUnretained(node))
    self.lifetime = lifetime
    self.observe = observe
  }

  /// The current reference.
  package var reference: Ref {
    head.load(ordering: .acquiring)._withUnsafeGuaranteedRef { $0.reference }
  }

  /// Calls `stored` with the current reference when it is a stored one, `other` otherwise: a
  /// holder's read of a stored reference is then inlined and specialized for its value's type.
  @inlinable @inline(__always)
  package func withCurrent<R>(
    stored: (StoredReference<Value>) throws -> R, other: (Ref) throws -> R
  ) rethrows -> R {
    try head.load(ordering: .acquiring)._withUnsafeGuaranteedRef { node in
      if let reference = node.stored { return try reference._withUnsafeGuaranteedRef(stored) }
      return try other(node.reference)
    }
  }

  /// The current reference with the lifetime that keeps it live, for a projection or another
  /// cell to hold.
  package var held: (reference: Ref, lifetime: ReferenceLifetime?) {
    lock.withLock { _ in (newest.reference, lifetime) }
  }

  /// Points every copy at what `other` holds now.
  package func rekey(following other: ReferenceBox) {
    let held = other.held
    rekey(to: held.reference, lifetime: held.lifetime)
  }

  /// Points every copy at `reference`; live `changes` streams move along and yield its value.
  package func rekey(to reference: Ref, lifetime: ReferenceLifetime?) {
    let released = lock.withLock { _ in
      let node = Node(reference)
      retired.append(newest)
      newest = node
      head.store(Unmanaged.passUnretained(node), ordering: .releasing)
      defer { self.lifetime = lifetime }
      for (id, listener) in listeners {
        listener.subscription.cancel()
        listeners[id]?.subscription = observe(reference, listener.callback)
      }
      return self.lifetime
    }
    // Let go outside the lock: ending a lifetime cancels the key's subscription.
    withExtendedLifetime(released) {}
  }

  /// Calls `callback` with the current value, then each change, across re-keying.
  package func listen(_ callback: @escaping @Sendable (Value) -> Void) -> SharedSubscription {
    let id = lock.withLock { _ in
      let id = nextListener
      nextListener += 1
      let subscription = observe(newest.reference, callback)
      listeners[id] = Listener(callback: callback, subscription: subscription)
      return id
    }
    return SharedSubscription { [self] in
      let removed = lock.withLock { _ in listeners.removeValue(forKey: id) }
      removed?.subscription.cancel()
    }
  }
}
