import Foundation
import Logging
import Synchronization
import Tether
import TetherFileStorage
import TetherTestHelperSupport

// What Tether logs, when the app gives bootstrap a logger of its own.
extension Helper {
  /// `givenLogger`: an unmapped name (core) and two keys of one file with different settings
  /// (the file strategy) log through the given logger, each with its module; the logging
  /// system, recording too, gets nothing of Tether's.
  static func givenLogger(folder: String) {
    LoggingSystem.bootstrap { label in RecordingHandler(source: "system \(label)") }
    let logger = Logger(label: "app") { _ in RecordingHandler(source: "given") }
    let config = """
      [keys]
      count = file

      [strategy.file]
      directory = \(folder)
      throttle = 30s
      """
    do {
      try TetherSystem.bootstrap(
        configuration: .string(config), strategies: [FileStorageStrategy.self], logger: logger)
    } catch {
      fail("bootstrap failed: \(error)")
    }
    let unmapped = Shared(wrappedValue: 0, .registered("unmapped"))
    let registered = Shared(wrappedValue: 0, .registered("count"))
    // The same file, with the direct key's settings (a 1 s throttle): one store, and a warning.
    let direct = Shared(wrappedValue: 0, .fileStorage(URL(filePath: folder + "/count.json")))
    withExtendedLifetime((unmapped, registered, direct)) {
      var report = HelperReport()
      report.messages = RecordingHandler.recorded.withLock { $0 }
      emit(report)
    }
  }
}

/// Records each message as `SOURCE LEVEL MODULE: MESSAGE`, MODULE being the `tether.module`
/// metadata (`-` when there is none).
private struct RecordingHandler: LogHandler {
  static let recorded = Mutex<[String]>([])

  let source: String
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .info

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let module = metadata["tether.module"].map { "\($0)" } ?? "-"
    Self.recorded.withLock { $0.append("\(source) \(event.level) \(module): \(event.message)") }
  }
}
