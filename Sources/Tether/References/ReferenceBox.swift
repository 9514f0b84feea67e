public import Synchronization
import TetherLocking

/// The cell that every copy of one `Shared` (or `SharedReader`) holds, so re-keying through
/// `projectedValue` re-keys every copy, and `changes` streams follow the new key.
///
/// Every read of a shared value passes here, so reading the current reference takes no lock:
/// it is one atomic load of the newest node. Re-keying keeps the earlier nodes until the cell
/// itself goes, so a read that loaded one just before never sees it freed. An earlier reference
/// keeps its memory only: its lifetime is let go at once, so it stops following its key and
/// leaves the table of live references.
@usableFromInline
final class ReferenceBox<Value: Sendable, Ref: Sendable>: @unchecked Sendable {
  // @unchecked: `newest`, `retired`, `lifetime`, `listeners` and `nextListener` are only
  // touched while holding `lock`; `head` is atomic and only points at nodes kept alive there.
  @usableFromInline let head: Atomic<Unmanaged<Node>>
  private let lock = UnfairMutex(())
  @usableFromInline var newest: Node
  private var retired: [Node] = []
  @usableFromInline var lifetime: ReferenceLifetime?
  // Values are `Listener`s: an empty dictionary of a generic type had its metadata looked up
  // for every new holder, where most holders never have a listener.
  private var listeners: [UInt64: AnyObject] = [:]
  private var nextListener: UInt64 = 0
  @usableFromInline
  let observe: @Sendable (Ref, @escaping @Sendable (Value) -> Void) -> SharedSubscription

  @usableFromInline
  final class Node: Sendable {
    @usableFromInline let reference: Ref
    /// The same reference when it is a stored one, so reads of it can be specialized; unmanaged
    /// because `reference` keeps it alive, and a read then neither retains nor releases it.
    @usableFromInline let stored: Unmanaged<StoredReference<Value>>?

    /// `stored` is `reference` when it is a stored one: passed by the caller, which knows, so
    /// that no holder pays for a dynamic cast here.
    @usableFromInline
    init(_ reference: Ref, stored: StoredReference<Value>?) {
      self.reference = reference
      if let stored {
        self.stored = Unmanaged.passUnretained(stored)
      } else {
        self.stored = nil
      }
    }
  }

  /// A `changes` iteration: guarded by the box's lock.
  private final class Listener {
    let callback: @Sendable (Value) -> Void
    var subscription: SharedSubscription

    init(callback: @escaping @Sendable (Value) -> Void, subscription: SharedSubscription) {
      self.callback = callback
      self.subscription = subscription
    }
  }

  /// `stored` is `reference` when it is a stored one (its reads are then specialized), else
  /// `nil`.
  // Inlined, so a holder's cell and node are made with their types known (see `Shared.init`).
  @inlinable
  init(
    _ reference: Ref, stored: StoredReference<Value>?, lifetime: ReferenceLifetime?,
    observe: @escaping @Sendable (Ref, @escaping @Sendable (Value) -> Void) -> SharedSubscription
  ) {
    let node = Node(reference, stored: stored)
    self.newest = node
    self.head = Atomic(Unmanaged.passUnretained(node))
    self.lifetime = lifetime
    self.observe = observe
  }

  /// The current reference.
  var reference: Ref {
    head.load(ordering: .acquiring)._withUnsafeGuaranteedRef { $0.reference }
  }

  /// Calls `stored` with the current reference when it is a stored one, `other` otherwise: a
  /// holder's read of a stored reference is then inlined and specialized for its value's type.
  @inlinable @inline(__always)
  func withCurrent<R>(
    stored: (StoredReference<Value>) throws -> R, other: (Ref) throws -> R
  ) rethrows -> R {
    try head.load(ordering: .acquiring)._withUnsafeGuaranteedRef { node in
      if let reference = node.stored { return try reference._withUnsafeGuaranteedRef(stored) }
      return try other(node.reference)
    }
  }

  /// The current reference (and the same as a stored one, if it is one) with the lifetime that
  /// keeps it live, for a projection or another cell to hold.
  var held: (reference: Ref, stored: StoredReference<Value>?, lifetime: ReferenceLifetime?) {
    lock.withLock { _ in (newest.reference, newest.stored?.takeUnretainedValue(), lifetime) }
  }

  /// Points every copy at what `other` holds now.
  func rekey(following other: ReferenceBox) {
    let held = other.held
    rekey(to: held.reference, stored: held.stored, lifetime: held.lifetime)
  }

  /// Points every copy at `reference` (`stored` when it is a stored one); live `changes`
  /// streams move along and yield its value, and Observation is told that what was read
  /// through this cell changed.
  func rekey(
    to reference: Ref, stored: StoredReference<Value>?, lifetime: ReferenceLifetime?
  ) {
    let (released, replaced) = lock.withLock { _ in
      let node = Node(reference, stored: stored)
      let replaced = newest.reference
      retired.append(newest)
      newest = node
      head.store(Unmanaged.passUnretained(node), ordering: .releasing)
      defer { self.lifetime = lifetime }
      for listener in listeners.values {
        let listener = unsafeDowncast(listener, to: Listener.self)
        listener.subscription.cancel()
        listener.subscription = observe(reference, listener.callback)
      }
      return (self.lifetime, replaced)
    }
    // Outside the lock: an `onChange` may read this cell or start a `changes` stream of it.
    tellObservation(replaced)
    // Let go outside the lock: ending a lifetime cancels the key's subscription.
    withExtendedLifetime(released) {}
  }

  /// Tells Observation that `replaced` is no longer what this cell reads. `Ref` is a reference
  /// existential (`any Reference<Value>` or `any MutableReference<Value>`), so the cast holds;
  /// re-keying is rare enough for it.
  private func tellObservation(_ replaced: Ref) {
    (replaced as? any Reference)?.tellObservationReplaced()
  }

  /// Calls `callback` with the current value, then each change, across re-keying.
  func listen(_ callback: @escaping @Sendable (Value) -> Void) -> SharedSubscription {
    let id = lock.withLock { _ in
      let id = nextListener
      nextListener += 1
      let subscription = observe(newest.reference, callback)
      listeners[id] = Listener(callback: callback, subscription: subscription)
      return id
    }
    return SharedSubscription { [self] in
      let removed = lock.withLock { _ in listeners.removeValue(forKey: id) }
      if let removed { unsafeDowncast(removed, to: Listener.self).subscription.cancel() }
    }
  }
}
