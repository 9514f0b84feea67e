package import Foundation
package import TetherFiles

/// A subscription to one file's changes; cancelled by ``cancel()`` or when released.
///
/// The strategy that writes the file tells the watch about its own writes, so they are never
/// delivered back as external changes: ``willWrite(_:)`` before replacing the file,
/// ``didWrite(_:)`` after, ``writeFailed(_:)`` if it could not.
package final class FileWatch: Sendable {
  /// The watched path, absolute and standardized.
  package var path: String { key.string }
  private let key: HashedPath
  private let id: UInt64
  private let watcher: FileWatcher

  init(key: HashedPath, id: UInt64, watcher: FileWatcher) {
    self.key = key
    self.id = id
    self.watcher = watcher
  }

  deinit { cancel() }

  /// Stops deliveries to this subscription.
  package func cancel() { watcher.unsubscribe(key, id: id) }

  /// `data` is about to replace the file: content equal to it is ours, not an external change.
  package func willWrite(_ data: Data) { watcher.expectOwnWrite(key, data: data) }

  /// The file now holds `data`, written by us.
  package func didWrite(_ data: Data) { watcher.recordOwnWrite(key, data: data) }

  /// The content the watcher last saw or was told of: what a writer expects to replace.
  package var knownContent: FileContent? { watcher.known(key) }

  /// The write of `data` did not happen.
  package func writeFailed(_ data: Data) { watcher.cancelOwnWrite(key, data: data) }
}
