package import Foundation

/// A subscription to one file's changes; cancelled by ``cancel()`` or when released.
///
/// The strategy that writes the file tells the watch about its own writes, so they are never
/// delivered back as external changes: ``willWrite(_:)`` before replacing the file,
/// ``didWrite(_:)`` after, ``writeFailed(_:)`` if it could not.
package final class FileWatch: Sendable {
  /// The watched path, absolute and standardized.
  package let path: String
  private let id: UInt64
  private let watcher: FileWatcher

  init(path: String, id: UInt64, watcher: FileWatcher) {
    self.path = path
    self.id = id
    self.watcher = watcher
  }

  deinit { cancel() }

  /// Stops deliveries to this subscription.
  package func cancel() { watcher.unsubscribe(path: path, id: id) }

  /// `data` is about to replace the file: content equal to it is ours, not an external change.
  package func willWrite(_ data: Data) { watcher.expectOwnWrite(path: path, data: data) }

  /// The file now holds `data`, written by us.
  package func didWrite(_ data: Data) { watcher.recordOwnWrite(path: path, data: data) }

  /// The content the watcher last saw or was told of: what a writer expects to replace.
  package var knownContent: FileContent? { watcher.known(path: path) }

  /// The write of `data` did not happen.
  package func writeFailed(_ data: Data) { watcher.cancelOwnWrite(path: path, data: data) }
}
