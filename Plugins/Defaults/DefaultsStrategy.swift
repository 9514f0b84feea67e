public import Tether

/// The `defaults` strategy: registered keys are lines of an INI defaults file.
///
/// ```ini
/// [keys]
/// count = defaults
///
/// [strategy.defaults]
/// # default: DefaultsStore.standard
/// file         = $XDG_CONFIG_HOME/facts/defaults.ini
/// # read-only values shipped with the app
/// registration = defaults.ini
/// # default: 1s, as for files
/// throttle     = 1s
/// ```
///
/// `.registered("count")` mapped here and `.defaults("count", store:)` on the same file are one
/// reference.
public struct DefaultsStrategy: PersistenceStrategy {
  /// `defaults`.
  public static let kind = "defaults"
  /// Keys read no options of their own.
  public static var keyOptionNames: Set<String>? { [] }

  /// The file (and registration file) keys live in.
  public let store: DefaultsStore
  /// Changes after a write coalesce into one trailing write within this window.
  public let throttle: Duration

  /// Reads `file`, `registration` and `throttle`.
  public init(options: StrategyOptions) throws {
    let file = try options.path("file") ?? DefaultsStore.standard.file
    store = DefaultsStore(file: file, registration: try options.path("registration"))
    throttle = try options.duration("throttle") ?? .seconds(1)
  }

  /// The key for `name`; throws `unsupportedType` for a type a defaults file cannot store.
  public func key<Value: Sendable>(
    named name: String, as type: Value.Type, options: StrategyOptions
  ) throws -> any SharedKey<Value> {
    if case .failure(let error) = DefaultsKey<Value>.coding(for: name, in: store) { throw error }
    return DefaultsKey<Value>(name, store: store, throttle: throttle)
  }
}
