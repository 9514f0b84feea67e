package import Logging
import TetherLocking

/// The logger each module of Tether logs through: the one the app handed
/// `TetherSystem.bootstrap(…logger:)`, with the module's label as its `tether.module` metadata, or
/// else swift-log's logger for that label.
///
/// Process-wide, as the watcher and the logging system are. Each message asks for its logger
/// afresh (only warnings and errors are frequent enough to matter, and they are rare), so a
/// logging system bootstrapped after Tether's first message is the one used.
package enum TetherLog {
  private static let given = UnfairMutex<Logger?>(nil)

  /// The metadata key that names the module of a message logged through a given logger.
  package static let moduleKey = "tether.module"

  /// Makes `logger` the one every module logs through, from the next message on (`nil`: each
  /// module's own label again).
  package static func use(_ logger: Logger?) {
    given.withLock { $0 = logger }
  }

  /// The logger of the module labelled `label` (`tether.core`, `tether.file`, …).
  package static func logger(_ label: String) -> Logger {
    guard var logger = given.withLock({ $0 }) else { return Logger(label: label) }
    logger[metadataKey: moduleKey] = .string(label)
    return logger
  }
}
