import Synchronization

extension SharedReaderKey {
  /// A key whose strategy the config file chooses: see ``RegisteredKey``.
  ///
  /// ```swift
  /// extension SharedKey where Self == RegisteredKey<[Fact]>.Default {
  ///   static var favoriteFacts: Self { Self[.registered("favoriteFacts"), default: []] }
  /// }
  /// @Shared(.favoriteFacts) var favoriteFacts   // stored wherever [keys] says
  /// ```
  public static func registered<V>(_ name: String) -> Self where Self == RegisteredKey<V> {
    RegisteredKey(name)
  }
}

/// A key declared by name and type; the `[keys]` section of the config decides which strategy
/// stores it.
///
/// It resolves on first use through the registry of the current bootstrap, and its ``id`` is the
/// resolved key's, so `.registered("count")` and the key it maps to (`.inMemory("count")`,
/// `.fileStorage(url)`, …) share one reference. A name the config does not map, or a key used
/// before `TetherSystem.bootstrap`, keeps its default and sets `loadError`
/// (`TetherError.unmappedKey`, `.notBootstrapped`); it is never silently kept in memory.
///
/// Mapped to a ``ReadOnlyPersistenceStrategy``, it reads through the strategy's reader key;
/// `@Shared` on it keeps changes in memory with `saveError` set to
/// ``TetherError/readOnly(key:kind:)``, which `save()`, `transaction` and `reset()` throw.
public struct RegisteredKey<Value: Sendable>: TransactionalKey, ResettableKey, ScopeBoundKey,
  CustomStringConvertible
{
  /// The name `[keys]` maps.
  public let name: String
  private let resolution: Resolution

  /// A key named `name`, resolved through the current bootstrap.
  public init(_ name: String) {
    self.init(name, in: .current)
  }

  init(_ name: String, in scope: TetherScope) {
    self.name = name
    self.resolution = Resolution(name: name, scope: scope)
  }

  /// The resolved key's id; before resolution succeeds, the name and the value type.
  public var id: AnyHashable {
    switch resolution.key {
    case .success(let key): return Self.erase(key)
    case .failure: return AnyHashable(UnresolvedID(name: name, type: ObjectIdentifier(Value.self)))
    }
  }

  /// `.registered("name")`.
  public var description: String { ".registered(\(String(reflecting: name)))" }

  /// Loads through the resolved key, or fails with why it could not be resolved.
  public func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    switch resolution.key {
    case .success(let key): key.load(context: context, continuation: continuation)
    case .failure(let error): continuation.resume(throwing: error)
    }
  }

  /// Subscribes through the resolved key; an unresolved key has nothing to deliver.
  public func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    switch resolution.key {
    case .success(let key):
      return key.subscribe(context: context, subscriber: subscriber.forwardingInline(by: self))
    case .failure: return SharedSubscription {}
    }
  }

  /// Saves through the resolved key, or fails with why it could not be resolved.
  public func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    switch resolution.key {
    case .success(let key): key.save(value, context: context, continuation: continuation)
    case .failure(let error): continuation.resume(throwing: error)
    }
  }

  /// Runs the transaction through the resolved key; throws
  /// ``TetherError/notTransactional(key:kind:)`` when its strategy cannot run one, or why the
  /// name could not be resolved.
  public func transaction(
    context: LoadContext<Value>, update: (inout Value) throws -> Void,
    stored: (Value) -> Void
  ) throws {
    let key = try resolution.key.get()
    guard let transactional = key as? any TransactionalKey<Value> else {
      throw TetherError.notTransactional(
        key: name, kind: resolution.scope.strategyKind(of: name) ?? "\(type(of: key))")
    }
    try transactional.transaction(context: context, update: update, stored: stored)
  }

  /// Resets through the resolved key; throws ``TetherError/notResettable(key:kind:)`` when its
  /// strategy cannot remove a stored value, or why the name could not be resolved.
  public func reset(stored: (Value?) -> Void) throws {
    let key = try resolution.key.get()
    guard let resettable = key as? any ResettableKey<Value> else {
      throw TetherError.notResettable(
        key: name, kind: resolution.scope.strategyKind(of: name) ?? "\(type(of: key))")
    }
    try resettable.reset(stored: stored)
  }

  private static func erase(_ key: some SharedKey<Value>) -> AnyHashable { AnyHashable(key.id) }

  /// The scope whose config the name resolves through.
  @usableFromInline package var scopeID: TetherScope.ID { resolution.scope.id }

  /// The same name, resolved through `scope`'s config: a holder in another scope than the
  /// key's uses its own scope's mapping.
  @usableFromInline package func rebound(to scope: TetherScope) -> Self { Self(name, in: scope) }

  private struct UnresolvedID: Hashable {
    let name: String
    let type: ObjectIdentifier
  }

  /// What the name resolves to, asked of the scope's registry once: the registry's answer is
  /// final. Only "not bootstrapped yet" is asked again, at the next use. (A change reaches the
  /// resolved key directly: it takes changes inline from the subscriber this key hands on.)
  private final class Resolution: Sendable {
    let name: String
    let scope: TetherScope
    private let settled = AtomicLazyReference<Resolved>()

    init(name: String, scope: TetherScope) {
      self.name = name
      self.scope = scope
    }

    /// The resolved key, or why there is none.
    var key: Result<any SharedKey<Value>, TetherError> {
      if let resolved = settled.load() { return resolved.key }
      let key = scope.resolve(name, as: Value.self)
      if case .failure(.notBootstrapped) = key { return key }
      return settled.storeIfNil(Resolved(key)).key
    }
  }

  private final class Resolved: Sendable {
    let key: Result<any SharedKey<Value>, TetherError>

    init(_ key: Result<any SharedKey<Value>, TetherError>) {
      self.key = key
    }
  }
}
