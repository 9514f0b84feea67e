package import Foundation

/// A loaded config: which strategy stores each key, the strategy instances, and each key's own
/// options. Every startup error of DESIGN §3, and with key declarations every error of the
/// declarations against the config, is found at once, each located at `file:line`.
package final class StrategyRegistry: Sendable {
  /// What a config naming a strategy kind this program does not register gets.
  package enum UnknownKinds: Sendable {
    /// An error, as an app wants: its config names only strategies it has.
    case rejected
    /// A record (``StrategyRegistry/foreignStrategies``), as the plain `tether` tool wants
    /// for an app's own strategies: keys mapped there fail to resolve, saying so
    /// (``TetherError/foreignStrategy(key:kind:location:)``), and every other key works.
    case tolerated
  }

  package let origin: String
  package let mapping: KeyMapping
  package let instances: [String: StrategyInstance]
  package let keyOptions: [String: StrategyOptions]
  /// The keys the app declared, in the order given.
  package let declarations: [KeyDeclaration]
  /// The strategies of kinds this program does not have, in file order (only when unknown
  /// kinds are ``UnknownKinds/tolerated``).
  package let foreignStrategies: [ForeignStrategy]
  /// The header line of each `[key.NAME]` section, by `NAME`.
  let keySectionLines: [String: Int]
  let foreign: [String: ForeignStrategy]
  let resolutions: LockedState<Resolutions>

  /// Loads `configuration`; throws every error it has (one as itself, several as
  /// ``TetherError/multiple(_:)`` in file order), checked against `declarations` too.
  package convenience init(
    configuration: TetherConfiguration, strategies: [any PersistenceStrategy.Type],
    declarations: [KeyDeclaration] = [], unknownKinds: UnknownKinds = .rejected
  ) throws {
    try self.init(
      document: configuration.lenientDocument(), origin: configuration.origin,
      baseDirectory: configuration.baseDirectory, strategies: strategies, expansion: .process,
      declarations: declarations, unknownKinds: unknownKinds)
  }

  /// Loads a parsed config; throws as ``init(configuration:strategies:declarations:unknownKinds:)``
  /// does, the lines of `document` that do not parse among the errors.
  package convenience init(
    document: INIDocument, origin: String, baseDirectory: URL,
    strategies: [any PersistenceStrategy.Type], expansion: PathExpansion,
    declarations: [KeyDeclaration] = [], unknownKinds: UnknownKinds = .rejected
  ) throws {
    let loaded = ConfigLoader(
      document: document, origin: origin, baseDirectory: baseDirectory, expansion: expansion,
      unknownKinds: unknownKinds
    ).load(strategies)
    self.init(loaded: loaded, origin: origin, declarations: declarations)
    let errors = TetherError.inFileOrder(loaded.errors + declarationErrors(), origin: origin)
    if let error = TetherError.collected(errors) { throw error }
  }

  private init(loaded: ConfigLoader.Loaded, origin: String, declarations: [KeyDeclaration]) {
    self.origin = origin
    self.mapping = loaded.mapping
    self.instances = loaded.instances
    self.keyOptions = loaded.keyOptions
    self.keySectionLines = loaded.keySectionLines
    self.foreign = loaded.foreign
    self.foreignStrategies = loaded.foreign.values.sorted { $0.line < $1.line }
    self.declarations = declarations
    self.resolutions = LockedState(Resolutions(declaring: declarations))
  }

  /// Every error in `configuration`, in file order, for `tether check` (and an app's settings
  /// command, with its `declarations`): lines that do not parse and what the lines that do get
  /// wrong. Only a file that cannot be read, or bytes that are not UTF-8, stop it at the first.
  package static func diagnose(
    configuration: TetherConfiguration, strategies: [any PersistenceStrategy.Type],
    declarations: [KeyDeclaration] = [], unknownKinds: UnknownKinds = .rejected
  ) -> [TetherError] {
    let document: INIDocument
    do {
      document = try configuration.lenientDocument()
    } catch {
      return [error]
    }
    let loaded = ConfigLoader(
      document: document, origin: configuration.origin,
      baseDirectory: configuration.baseDirectory, expansion: .process, unknownKinds: unknownKinds
    ).load(strategies)
    let registry = StrategyRegistry(
      loaded: loaded, origin: configuration.origin, declarations: declarations)
    // The declared keys it resolves belong to a scope of their own, gone with the registry:
    // checking a config leaves nothing in the caller's.
    let declarationErrors = TetherScope.$override.withValue(TetherScope()) {
      registry.declarationErrors()
    }
    return TetherError.inFileOrder(
      loaded.errors + declarationErrors, origin: configuration.origin)
  }

  /// The kind this program does not have that the strategy of `name` is, when the config maps
  /// `name` to such a strategy (see ``UnknownKinds/tolerated``); `nil` otherwise.
  package func foreignKind(of name: String) -> String? {
    mapping.rule(for: name).flatMap { foreign[$0.strategy]?.kind }
  }

  /// The kind of the strategy `name` is mapped to.
  func strategyKind(of name: String) -> String? {
    mapping.rule(for: name).flatMap { instances[$0.strategy]?.kind ?? foreign[$0.strategy]?.kind }
  }
}
