/// A key that can also save values: the kind of key `@Shared` needs.
///
/// `save` is called on the mutating thread, in the order of the mutations, for every change made
/// through `Shared.withLock(_:)` (with ``SaveContext/didSet``) and for every explicit
/// ``Shared/save()`` (with ``SaveContext/userInitiated``). A key whose storage is slow should
/// return quickly from a `.didSet` save and write later; an explicit save should write now.
public protocol SharedKey<Value>: SharedReaderKey {
  /// Saves `value`, resuming `continuation` exactly once, on any thread.
  func save(_ value: Value, context: SaveContext, continuation: SaveContinuation)
}

/// Why a key is asked to save a value.
public enum SaveContext: Hashable, Sendable {
  /// The value changed through `Shared.withLock(_:)`; the key may throttle the write.
  case didSet
  /// The user called ``Shared/save()``; the key should write now.
  case userInitiated
}
