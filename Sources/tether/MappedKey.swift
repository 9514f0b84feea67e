import Tether

/// A key as the config maps it: the strategy that stores it, reached through the stored-text
/// form it shares with every strategy `tether` can read (`StoredTextStrategy`), never through
/// a concrete strategy type.
struct MappedKey {
  let name: String
  /// The kind of the strategy the config maps the key to.
  let kind: String
  /// The strategy, when it has a stored text form.
  let strategy: (any StoredTextStrategy)?
  let options: StrategyOptions

  /// The mapping of `name` in `registry`; throws `TetherError.invalidKeyName` for a name no
  /// key can have (as the registry does, and before it is looked up) and the registry's error
  /// for an unmapped name.
  init(_ name: String, in registry: StrategyRegistry) throws {
    try KeyName.validate(name)
    try self.init(unchecked: name, in: registry)
  }

  /// The mapping of a `[keys]` pattern, shown for `placeholder` (`session.<name>`): only its
  /// ``location()`` may be asked, which opens nothing.
  init(pattern placeholder: String, in registry: StrategyRegistry) throws {
    try self.init(unchecked: placeholder, in: registry)
  }

  private init(unchecked name: String, in registry: StrategyRegistry) throws {
    guard let rule = registry.mapping.rule(for: name),
      let instance = registry.instances[rule.strategy]
    else { throw TetherError.unmappedKey(name, origin: registry.origin) }
    self.name = name
    self.kind = instance.kind
    self.strategy = instance.strategy as? any StoredTextStrategy
    self.options = registry.keyOptions[name] ?? StrategyOptions()
  }

  /// Where the value lives, in words.
  func location() throws -> String {
    try strategy?.storageLocation(of: name, options: options) ?? "kept by the \(kind) strategy"
  }
}
