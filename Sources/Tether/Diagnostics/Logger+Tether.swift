package import Logging
import TetherLogging

extension Logger {
  /// The core module's logger, `tether.core`; plugins log under `tether.<module>`.
  ///
  /// Made on each use (only error paths log) so that messages follow the logger the app gave
  /// `TetherSystem.bootstrap`, or the logging backend it bootstraps, even when it bootstraps
  /// after Tether's first message.
  package static var tether: Logger { TetherLog.logger("tether.core") }
}
