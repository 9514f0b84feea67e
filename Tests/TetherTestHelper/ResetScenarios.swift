import Foundation
import Tether
import TetherTestHelperSupport

// Resets seen from another process: a holder here is brought back to its default.
extension Helper {
  /// `holdUntilReset`: see ``HelperCommand/holdUntilReset(store:file:key:stored:ready:)``.
  static func holdUntilReset(
    store: TransactionStore, file: String, key: String, stored: Int, ready: String
  ) {
    holding(store, file: file, key: key, default: -1) { value in
      waitUntil(value, holds: stored)
      write(ready, "ready")
      waitUntil(value, holds: -1)
      var report = HelperReport()
      report.seen = value.wrappedValue
      emit(report)
    }
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
