/// The entry point: bootstraps the key registry from a config file, once per process.
///
/// ```swift
/// @main struct FactsApp {
///   static func main() async throws {
///     try TetherSystem.bootstrap(
///       configuration: .file("Config/tether.conf"),
///       strategies: [InMemoryStrategy.self, FileStorageStrategy.self, DefaultsStrategy.self])
///     @Shared(.favoriteFacts) var favoriteFacts
///   }
/// }
/// ```
///
/// Tests use ``withBootstrap(configuration:strategies:keys:isolation:operation:)`` instead: each gets a
/// registry, in-memory values and live references of its own, so tests run in parallel.
public enum TetherSystem {
  /// This release of Tether: what `tether --version` prints.
  public static let version = "0.1.0"

  /// Loads the config and makes it the process's registry.
  ///
  /// Throws every error of the config at once, each located at `file:line` (one error as
  /// itself, several as ``TetherError/multiple(_:)`` in file order), or
  /// `TetherError.alreadyBootstrapped` when called a second time.
  ///
  /// With `keys`, the app's ``KeyDeclaration``s, the config is checked against them too: every
  /// declared key mapped, a type its strategy can store, each exact `[keys]` name and
  /// `[key.NAME]` section a declared key. Each name then has its declared type: a holder of
  /// another type gets ``TetherError/typeConflict(key:type:existing:)`` as its `loadError`.
  public static func bootstrap(
    configuration: TetherConfiguration, strategies: [any PersistenceStrategy.Type],
    keys: [KeyDeclaration] = []
  ) throws {
    if TetherScope.process.registry != nil { throw TetherError.alreadyBootstrapped }
    try TetherScope.process.bootstrap {
      try StrategyRegistry(configuration: configuration, strategies: strategies, declarations: keys)
    }
  }

  /// Runs `operation` with a registry of its own, overriding any process bootstrap for the tasks
  /// it runs: keys resolve through `configuration`, and in-memory values and live references
  /// belong to this scope alone. When `operation` ends (returning or throwing), the scope's
  /// pending throttled writes are flushed, as a process's are at exit, so nothing the scope
  /// wrote lands after it — in a temporary folder a test has already removed, say. The scope
  /// then goes, with what its plugins keep for it (stores, watches), once no holder made in it
  /// is left.
  ///
  /// ```swift
  /// @Test func counts() async throws {
  ///   try await TetherSystem.withBootstrap(
  ///     configuration: .string("[keys]\ncount = memory"), strategies: [InMemoryStrategy.self]
  ///   ) {
  ///     @Shared(.registered("count")) var count = 0
  ///     $count.withLock { $0 += 1 }
  ///   }
  /// }
  /// ```
  public static func withBootstrap<R>(
    configuration: TetherConfiguration, strategies: [any PersistenceStrategy.Type],
    keys: [KeyDeclaration] = [],
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> R
  ) async throws -> R {
    try await withRegistry(
      {
        try StrategyRegistry(
          configuration: configuration, strategies: strategies, declarations: keys)
      },
      operation: operation)
  }

  /// Runs `operation` in a scope of its own bootstrapped with the registry `make` builds (with
  /// that scope current, so declared keys resolve into it), as
  /// ``withBootstrap(configuration:strategies:keys:isolation:operation:)`` does: for a caller
  /// that builds the registry itself (the settings tool tolerates kinds it does not have).
  package static func withRegistry<R>(
    _ make: () throws -> StrategyRegistry,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> R
  ) async throws -> R {
    let scope = TetherScope()
    try scope.bootstrap(make)
    let result: Result<R, any Error>
    do {
      result = .success(try await TetherScope.$override.withValue(scope, operation: operation))
    } catch {
      result = .failure(error)
    }
    await flush(scope)
    return try result.get()
  }
}
