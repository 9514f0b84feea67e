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
public struct RegisteredKey<Value: Sendable>: SharedKey, CustomStringConvertible {
  /// The name `[keys]` maps.
  public let name: String
  private let scope: TetherScope

  /// A key named `name`, resolved through the current bootstrap.
  public init(_ name: String) {
    self.name = name
    self.scope = TetherScope.current
  }

  /// The resolved key's id; before resolution succeeds, the name and the value type.
  public var id: AnyHashable {
    switch scope.resolve(name, as: Value.self) {
    case .success(let key): return Self.erase(key)
    case .failure: return AnyHashable(UnresolvedID(name: name, type: ObjectIdentifier(Value.self)))
    }
  }

  /// `.registered("name")`.
  public var description: String { ".registered(\(String(reflecting: name)))" }

  /// Loads through the resolved key, or fails with why it could not be resolved.
  public func load(context: LoadContext<Value>, continuation: LoadContinuation<Value>) {
    switch scope.resolve(name, as: Value.self) {
    case .success(let key): key.load(context: context, continuation: continuation)
    case .failure(let error): continuation.resume(throwing: error)
    }
  }

  /// Subscribes through the resolved key; an unresolved key has nothing to deliver.
  public func subscribe(
    context: LoadContext<Value>, subscriber: SharedSubscriber<Value>
  ) -> SharedSubscription {
    switch scope.resolve(name, as: Value.self) {
    case .success(let key): return key.subscribe(context: context, subscriber: subscriber)
    case .failure: return SharedSubscription {}
    }
  }

  /// Saves through the resolved key, or fails with why it could not be resolved.
  public func save(_ value: Value, context: SaveContext, continuation: SaveContinuation) {
    switch scope.resolve(name, as: Value.self) {
    case .success(let key): key.save(value, context: context, continuation: continuation)
    case .failure(let error): continuation.resume(throwing: error)
    }
  }

  /// Forwards to the resolved key; an unresolved key takes a continuation, to fail it.
  public func _saveInline(_ value: Value) -> Bool {
    guard case .success(let key) = scope.resolve(name, as: Value.self) else { return false }
    return key._saveInline(value)
  }

  private static func erase(_ key: some SharedKey<Value>) -> AnyHashable { AnyHashable(key.id) }

  private struct UnresolvedID: Hashable {
    let name: String
    let type: ObjectIdentifier
  }
}
