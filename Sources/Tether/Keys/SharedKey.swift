/// A key that can also save values: the kind of key `@Shared` needs.
///
/// `save` is called on the mutating thread, in the order of the mutations, for every change made
/// through ``Shared/withLock(_:)`` (with ``SaveContext/didSet``) and for every explicit
/// ``Shared/save()`` (with ``SaveContext/userInitiated``). A key whose storage is slow should
/// return quickly from a `.didSet` save and write later; an explicit save should write now.
public protocol SharedKey<Value>: SharedReaderKey {
  /// Saves `value`, resuming `continuation` exactly once, on any thread.
  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation)
}

/// A key of Tether's own that takes a change made through ``Shared/withLock(_:)`` without a
/// continuation: its save cannot fail (memory), or its outcome reaches the holders through their
/// subscription (a throttled file). Such a key offers itself from `subscribe`
/// (``SharedSubscriber/takeChangesInline(_:)``), so a shared value learns it once, with no cast;
/// every other key is given a ``SaveContinuation`` per change.
package protocol InlineSavingKey<Value>: SharedKey {
  /// Takes `value` from a `withLock`, telling its outcome, if it can fail, to the key's
  /// subscribers; `false` to be given a continuation through `save` instead (a registered key
  /// that does not resolve, to fail it).
  func saveInline(_ value: Value) -> Bool
}

/// Why a key is asked to save a value.
public enum SaveContext: Hashable, Sendable {
  /// The value changed through ``Shared/withLock(_:)``; the key may throttle the write.
  case didSet
  /// The user called ``Shared/save()``; the key should write now.
  case userInitiated
}
