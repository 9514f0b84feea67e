/// A read-only strategy's reader key, as the registry hands it to a `RegisteredKey`: it reads
/// through the reader key and refuses every write with ``TetherError/readOnly(key:kind:)``.
///
/// Its `id` is the reader key's, so a registered key and that key are one reference. A refused
/// save leaves the change in the reference (every holder in this process shows it) and sets its
/// `saveError`; `transaction` and `reset` throw before anything changes.
package struct ReadOnlyKey<Value: Sendable>: TransactionalKey, ResettableKey,
  CustomStringConvertible
{
  /// The key that reads the value.
  package let base: any SharedReaderKey<Value>
  /// The registered name, for the error.
  package let name: String
  /// The strategy's kind, for the error.
  package let kind: String

  package init(_ base: any SharedReaderKey<Value>, name: String, kind: String) {
    self.base = base
    self.name = name
    self.kind = kind
  }

  /// The reader key's id.
  package var id: AnyHashable { Self.erase(base) }

  /// The reader key's description.
  package var description: String { String(describing: base) }

  private var refusal: TetherError { .readOnly(key: name, kind: kind) }

  package func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    base.load(context: context, continuation: continuation)
  }

  package func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    base.subscribe(context: context, subscriber: subscriber)
  }

  package func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    continuation.resume(throwing: refusal)
  }

  package func transaction(
    context: LoadContext<Value>, update: (inout Value) throws -> Void, stored: (Value) -> Void
  ) throws {
    throw refusal
  }

  package func reset(stored: (Value?) -> Void) throws {
    throw refusal
  }

  private static func erase(_ key: some SharedReaderKey<Value>) -> AnyHashable {
    AnyHashable(key.id)
  }
}
