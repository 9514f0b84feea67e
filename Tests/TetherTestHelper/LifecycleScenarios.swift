import Foundation
import Logging
import ServiceLifecycle
import Tether
import TetherFileStorage
import TetherServiceLifecycle

// Tether in a swift-service-lifecycle ServiceGroup, shut down by a signal.
extension Helper {
  /// `serviceGroup`: `count` leaves 2 pending in a 30 s window, and a service's graceful
  /// shutdown leaves `farewell` 2 pending and writes the marker; `TetherService`, listed
  /// first, ends last and must write both.
  static func serviceGroup(folder: String) {
    let config = """
      [keys]
      * = file

      [strategy.file]
      directory = \(folder)
      throttle = 30s
      """
    do {
      try TetherSystem.bootstrap(
        configuration: .string(config), strategies: [FileStorageStrategy.self])
    } catch {
      fail("bootstrap failed: \(error)")
    }
    let count = Shared(wrappedValue: 0, .registered("count"))
    count.withLock { $0 = 1 }  // the window's leading write, at once
    count.withLock { $0 = 2 }  // pending until the window ends, 30 s from now
    let farewell = Shared(wrappedValue: 0, .registered("farewell"))
    farewell.withLock { $0 = 1 }
    let group = ServiceGroup(
      services: [TetherService(), Farewell(value: farewell, marker: folder + "/marker")],
      gracefulShutdownSignals: [.sigterm], logger: Logger(label: "tether-test-helper"))
    Task {
      do {
        try await group.run()
      } catch {
        fail("the service group failed: \(error)")
      }
      // At once, without the exit-time flush: the files show what the group wrote.
      withExtendedLifetime(count) { _exit(0) }
    }
    while true { sleep(60) }
  }
}

/// A service that says `ready` once the group runs it, and on graceful shutdown changes the
/// value (left pending by the throttle) and then writes the marker: the cleanup of an app's
/// own service, which must run before the process ends.
private struct Farewell: Service {
  let value: Shared<Int>
  let marker: String

  func run() async throws {
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    do {
      try await gracefulShutdown()
    } catch is CancellationError {
      Helper.fail("the group was cancelled instead of shutting down gracefully")
    }
    value.withLock { $0 = 2 }
    Helper.write(marker, "done")
  }
}
