import Dispatch
import Logging
import TetherLocking
import TetherLogging

/// Warnings about a subject (a key, a file) said once per burst: a subject warned about again
/// within `quiet` of its last warning is counted instead, and the next warning after the quiet
/// says how many were left out. A thousand conflicting saves make one line, not a thousand.
package final class BurstWarnings: Sendable {
  private let quiet: UInt64
  private let label: String
  private let said = UnfairMutex<[String: (at: UInt64, leftOut: Int)]>([:])

  /// Warnings through the logger of the module labelled `label` (``TetherLog/logger(_:)``,
  /// made at each warning, so a logging system bootstrapped later is the one used).
  package init(label: String, quiet: Duration = .seconds(10)) {
    self.label = label
    self.quiet = quiet.nanoseconds
  }

  /// Logs `message` about `subject` unless it was warned about within the quiet time, through
  /// the logger of the module labelled `module` (by default, this one's). Call with no lock
  /// held that other threads or processes wait on: a blocked log stalls the caller.
  package func warn(
    _ subject: String, _ message: @autoclosure () -> String, module: String? = nil
  ) {
    let now = DispatchTime.now().uptimeNanoseconds
    let leftOut = said.withLock { said -> Int? in
      if let last = said[subject], now < last.at + quiet {
        said[subject] = (last.at, last.leftOut + 1)
        return nil
      }
      defer { said[subject] = (now, 0) }
      return said[subject]?.leftOut ?? 0
    }
    guard let leftOut else { return }
    let more = leftOut == 0 ? "" : " (\(leftOut) more like it since the last warning)"
    TetherLog.logger(module ?? label).warning("\(message())\(more)")
  }
}
