import TetherLocking

/// The watcher a settler reports to, held weakly, so that a watcher made for a test can go.
final class WeakWatcher: Sendable {
  private struct Weak {
    weak var watcher: FileWatcher?
  }

  private let cell = UnfairMutex(Weak())

  var watcher: FileWatcher? { cell.withLock { $0.watcher } }

  func set(_ watcher: FileWatcher) { cell.withLock { $0.watcher = watcher } }
}
