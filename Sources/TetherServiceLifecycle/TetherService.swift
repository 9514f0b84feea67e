public import ServiceLifecycle
import Tether

/// Tether as a service of a swift-service-lifecycle `ServiceGroup`: it runs until the group
/// shuts down gracefully (or is cancelled), then writes every pending throttled save of its
/// scope and closes what the strategies keep open, such as PostgreSQL's connections
/// (`TetherSystem/shutdown()`).
///
/// A group shuts its services down in the reverse of their order, each after the one behind
/// it has finished: list `TetherService` first, so it ends last, after the other services'
/// cleanup has made its last changes.
///
/// ```swift
/// import Logging
/// import ServiceLifecycle
/// import Tether
/// import TetherFileStorage
/// import TetherServiceLifecycle
///
/// @main struct Server {
///   static func main() async throws {
///     try TetherSystem.bootstrap(
///       configuration: .file("Config/tether.conf"), strategies: [FileStorageStrategy.self])
///     let group = ServiceGroup(
///       services: [TetherService(), HTTPServer()],  // Tether first: it shuts down last
///       gracefulShutdownSignals: [.sigterm, .sigint],
///       logger: Logger(label: "server"))
///     try await group.run()
///   }
/// }
/// ```
///
/// Do not combine it with `TetherSystem/flushOnTermination(signals:)`: that exits the
/// process on the signal, before the group's graceful shutdown (the other services' cleanup,
/// and this service's flush) has run.
public struct TetherService: Service {
  private let scope: TetherScope

  /// A service for the current scope: the process bootstrap's, or, inside
  /// `TetherSystem.withBootstrap`, that scope's.
  public init() {
    scope = TetherScope.current
  }

  /// Waits for the group's graceful shutdown (or its cancellation), then flushes and shuts
  /// down the scope's strategies; returns when everything is written and closed.
  public func run() async throws {
    do {
      try await gracefulShutdown()
    } catch is CancellationError {
      // The group was cancelled rather than shut down gracefully: the end all the same, and
      // what is pending is still written.
    }
    await TetherSystem.shutdown(scope)
  }
}
