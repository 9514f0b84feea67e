/// A place where values can live: in memory, in files, in an INI defaults file, or anywhere an
/// app chooses.
///
/// A strategy is built from its `[strategy.NAME]` section of the config file and hands out the
/// keys that store registered names. Tether's own strategies (`InMemoryStrategy`,
/// `FileStorageStrategy`, `DefaultsStrategy`) have exactly the shape an app's own strategy has:
///
/// ```swift
/// struct ReadOnlyEnvironment: PersistenceStrategy {
///   static let kind = "environment"
///   let prefix: String
///   init(options: StrategyOptions) throws { prefix = options["prefix"] ?? "" }
///   func key<Value: Sendable>(
///     named name: String, as type: Value.Type, options: StrategyOptions
///   ) throws -> any SharedKey<Value> {
///     guard Value.self == String.self else {
///       throw TetherError.unsupportedType("\(Value.self)", key: name, kind: Self.kind)
///     }
///     return EnvironmentKey(name: prefix + name) as! any SharedKey<Value>
///   }
/// }
/// ```
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
}

extension PersistenceStrategy {
  /// Unknown: per-key options are checked when each key is first used.
  public static var keyOptionNames: Set<String>? { nil }
}
