import Logging
import TetherLogging

extension Logger {
  /// The file-system helpers' logger, `tether.files`.
  static var files: Logger { TetherLog.logger("tether.files") }
}
