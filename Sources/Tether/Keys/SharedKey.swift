/// A key that can also save values: the kind of key `@Shared` needs.
///
/// `save` is called on the mutating thread, in the order of the mutations, for every change made
/// through ``Shared/withLock(_:)`` (with ``SaveContext/didSet``) and for every explicit
/// ``Shared/save()`` (with ``SaveContext/userInitiated``). A key whose storage is slow should
/// return quickly from a `.didSet` save and write later; an explicit save should write now.
public protocol SharedKey<Value>: SharedReaderKey {
  /// Saves `value`, resuming `continuation` exactly once, on any thread.
  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation)

  /// Takes a change made through ``Shared/withLock(_:)`` without a continuation, telling its
  /// outcome, if it can fail, to the key's subscribers; returns `false` (the default) to be given
  /// a continuation through ``save(_:context:continuation:)`` instead.
  ///
  /// An implementation detail of Tether's own keys: a continuation per change was a third of an
  /// in-memory `withLock` (measured with callgrind). A key that wraps another may forward it only
  /// when it hands the other key's `subscribe` its own subscriber unchanged: the outcome goes
  /// there. A wrapper that makes a subscriber of its own keeps the default, or failed writes
  /// would never reach `saveError`.
  func _saveInline(_ value: Value) -> Bool
}

extension SharedKey {
  /// Saves through ``save(_:context:continuation:)`` instead.
  public func _saveInline(_ value: Value) -> Bool { false }
}

/// Why a key is asked to save a value.
public enum SaveContext: Hashable, Sendable {
  /// The value changed through ``Shared/withLock(_:)``; the key may throttle the write.
  case didSet
  /// The user called ``Shared/save()``; the key should write now.
  case userInitiated
}
