public import Tether

/// The `memory` strategy: registered keys mapped to it are `.inMemory(name)` keys.
///
/// ```ini
/// [keys]
/// session.* = memory
/// ```
///
/// It reads no options. `.registered("x")` mapped here and `.inMemory("x")` are one reference.
public struct InMemoryStrategy: PersistenceStrategy {
  /// `memory`.
  public static let kind = "memory"

  /// Builds the strategy; it has no options.
  public init(options: StrategyOptions) throws {}

  /// None: any option in a `[key.NAME]` section of a key mapped here is reported when the
  /// config loads.
  public static var keyOptionNames: Set<String>? { [] }

  /// `.inMemory(name)`: in memory, every type can be stored.
  public func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    InMemoryKey<Value>(name)
  }
}
