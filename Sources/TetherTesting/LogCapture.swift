package import Logging
import TetherLocking

/// Records every log message of the test process, so tests can check what Tether reported.
package enum LogCapture {
  private static let messages = UnfairMutex<[(Logger.Level, String)]>([])

  private static let installed: Void = LoggingSystem.bootstrap { _ in Handler() }

  /// Installs the capturing handler (once per process).
  package static func install() { installed }

  /// Messages at `level` that contain `text`.
  package static func messages(at level: Logger.Level, containing text: String) -> [String] {
    messages.withLock { $0.filter { $0.0 == level && $0.1.contains(text) }.map(\.1) }
  }

  private struct Handler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      LogCapture.messages.withLock { $0.append((event.level, "\(event.message)")) }
    }
  }
}
