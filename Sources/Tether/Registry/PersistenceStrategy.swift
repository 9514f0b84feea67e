/// A place where values can live: in memory, in files, in an INI defaults file, or anywhere an
/// app chooses.
///
/// A strategy is built from its `[strategy.NAME]` section of the config file and hands out the
/// keys that store registered names. Tether's own strategies (`InMemoryStrategy`,
/// `FileStorageStrategy`, `DefaultsStrategy`) have exactly the shape an app's own strategy has.
///
/// A strategy that can only read (environment variables, a file the app ships) conforms to
/// ``ReadOnlyPersistenceStrategy`` instead and implements its
/// ``ReadOnlyPersistenceStrategy/readerKey(named:as:options:)``.
public protocol PersistenceStrategy: Sendable {
  /// The kind name a config file uses: "memory", "file", "defaults", or the app's own.
  static var kind: String { get }

  /// Builds a strategy instance from its `[strategy.NAME]` section.
  init(options: StrategyOptions) throws

  /// The concrete key that stores `name` as `Value`.
  ///
  /// Throws `TetherError.unsupportedType` when this strategy cannot store `Value`; `options`
  /// are the key's own `[key.NAME]` options.
  func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  )
    throws -> any SharedKey<Value>

  /// The per-key options (`[key.NAME]`) that `key(named:as:options:)` reads.
  ///
  /// Declare them so a misspelt one is reported when the config loads; with `nil` (the default)
  /// it is reported when the key is first used.
  static var keyOptionNames: Set<String>? { get }

  /// Lets go of what this instance keeps open (connections, background work) at the end of
  /// the app: called once by ``TetherSystem/shutdown()``, after the pending writes of the
  /// scope were flushed, with that scope current.
  ///
  /// Return once everything is closed. Failures are the strategy's to log: there is no caller
  /// left to act on them. Document what a key of yours used afterwards does — it may open
  /// again on use, or fail with an error naming the key — but never drop a change silently.
  /// The default does nothing, right for a strategy that keeps nothing open.
  func shutdown() async
}

extension PersistenceStrategy {
  /// Unknown: per-key options are checked when each key is first used.
  public static var keyOptionNames: Set<String>? { nil }

  /// Nothing to close.
  public func shutdown() async {}

  /// The key a reader of `name` uses: a read-only strategy's
  /// ``ReadOnlyPersistenceStrategy/readerKey(named:as:options:)``, any other's
  /// ``key(named:as:options:)``.
  ///
  /// What a caller that only reads (a test suite, a tool) asks of a strategy of any kind.
  public func keyForReading<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedReaderKey<Value> {
    if let readOnly = self as? any ReadOnlyPersistenceStrategy {
      return try readOnly.readerKey(named: name, as: type, options: options)
    }
    return try key(named: name, as: type, options: options)
  }
}

/// A strategy whose keys can only be read: implement ``readerKey(named:as:options:)`` alone.
///
/// `@SharedReader(.registered(name))` reads its keys. `@Shared` on one keeps changes in memory
/// (every holder shows them) and sets `saveError` to ``TetherError/readOnly(key:kind:)``;
/// `save()`, `transaction` and `reset()` throw it. Nothing is ever silently dropped or written.
///
/// ```swift
/// struct PlainEnvironment: ReadOnlyPersistenceStrategy {
///   static let kind = "plain-environment"
///   let prefix: String
///   init(options: StrategyOptions) throws { prefix = options["prefix"] ?? "" }
///   func readerKey<Value: Sendable>(
///     named name: String, as type: Value.Type, options: StrategyOptions
///   ) throws -> any SharedReaderKey<Value> {
///     guard let key = VariableKey(name: prefix + name) as? any SharedReaderKey<Value> else {
///       throw TetherError.unsupportedType("\(Value.self)", key: name, kind: Self.kind)
///     }
///     return key
///   }
/// }
/// ```
/// (`VariableKey` is the `SharedReaderKey<String>` shown with ``SharedReaderKey``;
/// `EnvironmentStrategy`, in `TetherEnvironment`, is the complete strategy.)
///
/// The requirement has no default, so a strategy that forgets it does not compile; the
/// ``PersistenceStrategy/key(named:as:options:)`` it inherits is implemented here, throwing
/// ``TetherError/readOnly(key:kind:)``, and is what a direct caller of it gets.
public protocol ReadOnlyPersistenceStrategy: PersistenceStrategy {
  /// The key that reads `name` as `Value`.
  ///
  /// Throws `TetherError.unsupportedType` when this strategy cannot read `Value`; `options` are
  /// the key's own `[key.NAME]` options.
  func readerKey<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedReaderKey<Value>
}

extension ReadOnlyPersistenceStrategy {
  /// Throws ``TetherError/readOnly(key:kind:)``: this strategy hands out reader keys only (the
  /// registry asks for those).
  public func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    throw TetherError.readOnly(key: name, kind: Self.kind)
  }
}
