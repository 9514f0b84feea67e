public import Tether

/// A key backed by a ``TestStorage``, for testing code that uses shared values, and Tether's
/// own handling of errors, loading states and subscriptions.
///
/// ```swift
/// let storage = TestStorage<Int>()
/// storage.failLoads(with: Unreadable())
/// @Shared(TestKey("count", storage: storage)) var count = 0
/// #expect($count.loadError is Unreadable)
/// ```
public struct TestKey<Value: Sendable>: SharedKey, CustomStringConvertible {
  /// The key's name, used in its id and description.
  public let name: String
  /// The store this key reads and writes.
  public let storage: TestStorage<Value>

  /// A key named `name` in `storage`.
  public init(_ name: String, storage: TestStorage<Value>) {
    self.name = name
    self.storage = storage
  }

  /// The name and the storage's identity.
  public var id: TestKeyID { TestKeyID(name: name, storage: ObjectIdentifier(storage)) }

  /// `.test("name")`.
  public var description: String { ".test(\(String(reflecting: name)))" }

  /// Loads from the storage, following its failure and holding settings.
  public func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    storage.load(continuation: continuation)
  }

  /// Subscribes to the storage's external changes.
  public func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    storage.subscribe(subscriber)
  }

  /// Saves to the storage, following its failure settings.
  public func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    storage.save(value, context: context, continuation: continuation)
  }
}

/// Identifies a ``TestKey``: its name in its storage.
public struct TestKeyID: Hashable, Sendable {
  let name: String
  let storage: ObjectIdentifier
}
