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

  /// `.inMemory(name)`: in memory, every type can be stored.
  public func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    InMemoryKey<Value>(name)
  }
}
