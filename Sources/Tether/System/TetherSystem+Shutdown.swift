import Synchronization

extension TetherSystem {
  /// Ends Tether's work in the current scope: writes every pending throttled save, as
  /// ``flush()`` does, then lets each strategy instance of the scope's config close what it
  /// keeps open (``PersistenceStrategy/shutdown()``: PostgreSQL's connections, for instance),
  /// and returns when all of that is done.
  ///
  /// Call it last, when the app stops: a server's shutdown path (`TetherService`, in
  /// `TetherServiceLifecycle`, calls it on graceful shutdown), or the end of `main`. The
  /// strategies are shut down once per scope; a later call only flushes. What a key does when
  /// used afterwards is its strategy's to say: the built-in file, defaults and in-memory keys
  /// keep working (they keep nothing open), and PostgreSQL's fail with an error naming the
  /// key (``TetherError/shutDown(key:store:)``), keeping the change in memory.
  ///
  /// ```swift
  /// try TetherSystem.bootstrap(configuration: .file("Config/tether.conf"), strategies: […])
  /// try await runTheApp()
  /// await TetherSystem.shutdown()
  /// ```
  ///
  /// Inside ``withBootstrap(configuration:strategies:keys:isolation:operation:)`` it ends that
  /// scope's strategies, elsewhere the process bootstrap's.
  public static func shutdown() async {
    await shutdown(TetherScope.current)
  }

  /// Flushes `scope`'s pending writes, then shuts its strategies down the first time.
  package static func shutdown(_ scope: TetherScope) async {
    await flush(scope)
    let mark = scope.local(ShutdownMark.self) { ShutdownMark() }
    guard !mark.done.exchange(true, ordering: .acquiringAndReleasing) else { return }
    // By name, so that one config shuts down in the same order every time.
    let instances = (scope.registry.map { Array($0.instances.values) } ?? [])
      .sorted { $0.name < $1.name }
    for instance in instances {
      await TetherScope.$override.withValue(scope) { await instance.strategy.shutdown() }
    }
  }
}

/// Whether a scope's strategies were shut down: they are once.
private final class ShutdownMark: Sendable {
  let done = Atomic<Bool>(false)
}
