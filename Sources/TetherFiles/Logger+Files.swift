import Logging

extension Logger {
  /// The file-system helpers' logger.
  static var files: Logger { Logger(label: "tether.files") }
}
