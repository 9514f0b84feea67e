extension SharedReaderKey {
  /// A key that carries its own default value, so `@Shared(.count) var count` needs none.
  ///
  /// ```swift
  /// extension SharedKey where Self == InMemoryKey<Int>.Default {
  ///   static var count: Self { Self[.inMemory("count"), default: 0] }
  /// }
  /// ```
  public typealias Default = _SharedKeyDefault<Self>
}

/// A key paired with its default value; build one with `Self[key, default: value]`.
///
/// Its ``id`` is its base key's, so it shares one reference with the bare key.
public struct _SharedKeyDefault<Base: SharedReaderKey>: SharedReaderKey, CustomStringConvertible {
  /// The key the default belongs to.
  public let base: Base
  /// Evaluated only when no value is live or stored yet.
  public let defaultValue: @Sendable () -> Base.Value

  /// Pairs `key` with a default value.
  public static subscript(
    _ key: Base, default value: @autoclosure @escaping @Sendable () -> Base.Value
  ) -> Self {
    Self(base: key, defaultValue: value)
  }

  private init(base: Base, defaultValue: @escaping @Sendable () -> Base.Value) {
    self.base = base
    self.defaultValue = defaultValue
  }

  /// The base key's id.
  public var id: Base.ID { base.id }

  /// The base key's description.
  public var description: String { String(describing: base) }

  /// Forwards to the base key.
  public func load(context: LoadContext<Base.Value>, continuation: LoadContinuation<Base.Value>) {
    base.load(context: context, continuation: continuation)
  }

  /// Forwards to the base key.
  public func subscribe(
    context: LoadContext<Base.Value>, subscriber: SharedSubscriber<Base.Value>
  ) -> SharedSubscription {
    base.subscribe(context: context, subscriber: subscriber.forwardingInline(by: self))
  }
}

extension _SharedKeyDefault: SharedKey where Base: SharedKey {
  /// Forwards to the base key.
  public func save(_ value: Base.Value, context: SaveContext, continuation: SaveContinuation) {
    base.save(value, context: context, continuation: continuation)
  }
}
