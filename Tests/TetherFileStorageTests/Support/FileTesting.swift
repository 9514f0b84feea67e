import Foundation
import Synchronization
import Testing
import Tether
import TetherFileStorage
import TetherTesting

/// Runs `body` in a bootstrap whose `file` strategy stores every key in `folder`.
func fileBootstrap<R>(
  _ folder: URL, throttle: String = "1s", extra: String = "",
  isolation: isolated (any Actor)? = #isolation,
  _ body: () async throws -> R
) async throws -> R {
  try await TetherSystem.withBootstrap(
    configuration: .string(
      """
      [keys]
      * = file
      [strategy.file]
      directory = \(folder.path)
      throttle = \(throttle)
      \(extra)
      """), strategies: [FileStorageStrategy.self], operation: body)
}

/// The file key the current bootstrap's `file` strategy makes for `name`, as the concrete type,
/// so a test can read its write count and settings.
func registeredFileKey(
  _ name: String, sourceLocation: SourceLocation = #_sourceLocation
) throws -> FileStorageKey<Int> {
  try #require(
    try TetherScope.current.registry?.instances["file"]?.strategy
      .key(named: name, as: Int.self, options: StrategyOptions()) as? FileStorageKey<Int>,
    sourceLocation: sourceLocation)
}

func text(_ url: URL) -> String? {
  do {
    return String(decoding: try Data(contentsOf: url), as: UTF8.self)
  } catch {
    return nil
  }
}

func mode(_ url: URL) throws -> Int {
  try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int ?? -1
}

/// Counts what a key's subscription delivers.
final class Counter: Sendable {
  private let values = Mutex<[Int?]>([])
  var all: [Int?] { values.withLock { $0 } }
  func record(_ value: Int?) { values.withLock { $0.append(value) } }

  func subscriber() -> SharedSubscriber<Int> {
    SharedSubscriber { result in
      if case .success(let value) = result { self.record(value) }
    }
  }
}
