/// One strategy the config uses: a `[strategy.NAME]` section, or a kind named in `[keys]`.
package struct StrategyInstance: Sendable {
  /// The name `[keys]` uses: a kind, or the section's own name.
  package let name: String
  package let kind: String
  package let strategy: any PersistenceStrategy
  package let options: StrategyOptions
  /// Whether keys' `path` options may leave the strategy's directory.
  package let allowsAbsolutePaths: Bool
}
