package import Logging

extension Logger {
  /// The core module's logger; plugins log under `tether.<module>`.
  ///
  /// Made on each use (only error paths log) so that messages follow the logging backend an app
  /// bootstraps, even when it bootstraps after Tether's first message.
  package static var tether: Logger { Logger(label: "tether.core") }
}
