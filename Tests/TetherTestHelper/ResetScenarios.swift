import Foundation
import Tether
import TetherDefaults
import TetherFileStorage
import TetherTestHelperSupport

// Resets seen from another process: a holder here is brought back to its default.
extension Helper {
  /// `holdUntilReset`: see ``HelperCommand/holdUntilReset(store:file:key:stored:ready:)``.
  static func holdUntilReset(
    store: TransactionStore, file: String, key: String, stored: Int, ready: String
  ) {
    let config = """
      [keys]
      * = defaults

      [strategy.defaults]
      file = \(file)
      """
    let done = DispatchSemaphore(value: 0)
    Task {
      do {
        try await TetherSystem.withBootstrap(
          configuration: .string(config), strategies: [DefaultsStrategy.self]
        ) {
          let value =
            switch store {
            case .file: Shared(wrappedValue: -1, .fileStorage(URL(filePath: file)))
            case .defaults: Shared(wrappedValue: -1, .registered(key))
            }
          waitUntil(value, holds: stored)
          write(ready, "ready")
          waitUntil(value, holds: -1)
          var report = HelperReport()
          report.seen = value.wrappedValue
          emit(report)
        }
      } catch {
        fail("bootstrap: \(error)")
      }
      done.signal()
    }
    done.wait()
  }

  /// Returns once `value` holds `expected`; exits 2 when 60 s pass first. Generous: the parent
  /// notices `ready` by polling, and a loaded machine slows both.
  private static func waitUntil(_ value: Shared<Int>, holds expected: Int) {
    let deadline = monotonicNanoseconds() + 60_000_000_000
    while value.wrappedValue != expected {
      if monotonicNanoseconds() > deadline {
        fail("never saw \(expected); last \(value.wrappedValue)")
      }
      usleep(1000)
    }
  }
}
