public import Logging
import TetherLogging

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
  ///
  /// - Parameters:
  ///   - configuration: The config file, or its text, that maps key names to strategies.
  ///   - strategies: The strategy types the config may name, by their ``PersistenceStrategy/kind``.
  ///   - keys: The app's key declarations, checked against the config; none by default.
  ///   - logger: The logger every module of Tether logs through from now on, for the
  ///   whole process: your app's, with its handler, level and metadata. Each message carries
  ///   the module that logged it as the metadata `tether.module`. Without it (`nil`), each
  ///   module logs through swift-log's `Logger(label:)` under that same name, made at each
  ///   message so a `LoggingSystem` bootstrapped later applies. The modules, and what they log:
  ///   - `tether.core`: a key that cannot resolve (a name the config does not map, a key used
  ///     before bootstrap, a type its strategy cannot store), a continuation of a key resumed
  ///     twice or never, a change made inside its own `withLock` or `onChange`.
  ///   - `tether.file`: the file strategy — a file changed on disk while a local change waited
  ///     (the file wins; said once per burst), an unreadable file kept as a backup before it
  ///     was replaced, two keys of one file asking for different settings.
  ///   - `tether.defaults`: the defaults strategy — a line of a defaults file that does not
  ///     parse, a file edited while a local change waited (once per burst), two keys of one
  ///     file asking for different settings, an unusable `XDG_CONFIG_HOME`.
  ///   - `tether.watcher`: the file watcher — falling back to polling and why, inotify
  ///     failing and being set up again, its control folder's housekeeping.
  ///   - `tether.files`: the file helpers — a folder whose stale temporary files (left by a
  ///     writer that was killed) cannot be looked for.
  ///   - `tether.postgres`: the PostgreSQL strategy — connections lost, made again or failing
  ///     (and why), statements past their deadline, connections closed at shutdown,
  ///     announcements it cannot read; and postgres-nio's own messages about its connections.
  ///   - `tether.conformance` (`TetherTesting`): the checks the conformance suite skipped.
  public static func bootstrap(
    configuration: TetherConfiguration, strategies: [any PersistenceStrategy.Type],
    keys: [KeyDeclaration] = [], logger: Logger? = nil
  ) throws {
    if TetherScope.process.registry != nil { throw TetherError.alreadyBootstrapped }
    // Before the config loads, so what loading it logs goes there too.
    if let logger { TetherLog.use(logger) }
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
  /// It takes no logger: the logger ``bootstrap(configuration:strategies:keys:logger:)`` takes
  /// is the process's, because the watcher and the stores log from threads of their own, where
  /// no task's scope is known. A test that checks what Tether logs runs a child process that
  /// bootstraps with a logger.
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
