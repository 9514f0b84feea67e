package import Foundation
import Synchronization
package import TetherFiles

/// A subscription to one file's changes; cancelled by ``cancel()`` or when released.
///
/// A strategy that writes the file writes through ``replacing(with:_:)``, so its own writes are
/// never delivered back as external changes and the watcher's view of the file (what it last
/// saw or was told of) is the one view the strategy compares with.
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

  /// How many of this process's writes through ``replacing(with:_:)`` have landed since the
  /// file was first watched: a ``FileChange`` read before the latest of them has a lower count.
  package var ownWritesLanded: UInt64 { watcher.ownWritesLanded(key) }

  /// Replaces the file with `data` through `write` as this process's own change: content equal
  /// to `data` is not an external change, and once `write` returns the version of the file it
  /// made, the watcher knows the file holds `data` in that version. `write` is handed what the
  /// subscribers were last given (the content last delivered, or written by this process): what
  /// the write expects to replace. A change the watcher has read and not finished delivering is
  /// not it, so the write does not replace that change unseen. If `write` throws, nothing is
  /// recorded.
  package func replacing(
    with data: Data, _ write: (_ known: FileSnapshot?) throws -> FileVersion
  ) rethrows {
    watcher.expectOwnWrite(key, data: data)
    let version: FileVersion
    do {
      version = try write(watcher.handedOver(key))
    } catch {
      watcher.cancelOwnWrite(key, data: data)
      throw error
    }
    watcher.recordOwnWrite(key, data: data, version: version)
  }

  /// Removes the file through `remove` as this process's own change (a reset): the file found
  /// missing is not an external change, and once `remove` returns the watcher knows it is gone,
  /// so a read from before is not delivered. If `remove` throws, nothing is recorded.
  package func removing<R>(_ remove: () throws -> R) rethrows -> R {
    watcher.expectOwnRemoval(key)
    let result: R
    do {
      result = try remove()
    } catch {
      watcher.cancelOwnRemoval(key)
      throw error
    }
    watcher.recordOwnRemoval(key)
    return result
  }
}

extension Optional where Wrapped == FileWatch {
  /// ``FileWatch/removing(_:)`` when a watch stands; otherwise just `remove`.
  package func removing<R>(_ remove: () throws -> R) rethrows -> R {
    guard let watch = self else { return try remove() }
    return try watch.removing(remove)
  }

  /// ``FileWatch/replacing(with:_:)`` when a watch stands; otherwise just `write`, knowing
  /// nothing of what the file held.
  package func replacing(
    with data: Data, _ write: (_ known: FileSnapshot?) throws -> FileVersion
  ) rethrows {
    guard let watch = self else {
      _ = try write(nil)
      return
    }
    try watch.replacing(with: data, write)
  }
}

/// A watched file's new content, as the watcher read it.
package struct FileChange: Sendable {
  /// What the file holds.
  package let content: FileContent
  /// How many of this process's writes of the file had landed when it was read (see
  /// ``FileWatch/ownWritesLanded``).
  package let ownWritesLanded: UInt64
  /// Records the content as handed over (what a write expects to replace); for the last of
  /// the file's subscribers only.
  private let handOver: HandOver?

  package init(content: FileContent, ownWritesLanded: UInt64) {
    self.init(content: content, ownWritesLanded: ownWritesLanded, handOver: nil)
  }

  init(content: FileContent, ownWritesLanded: UInt64, handOver: HandOver?) {
    self.content = content
    self.ownWritesLanded = ownWritesLanded
    self.handOver = handOver
  }

  /// Says the subscriber's holders have the content: a write of theirs from now on expects to
  /// replace it. Call before a write can look, under the lock writes take (a write that looked
  /// before would expect the content this one replaced, and be refused as a conflict with the
  /// very change its holders were answering). Only the file's last subscriber is given this to
  /// do, once every other has the content; the watcher does it after the last one returns if
  /// the subscriber did not.
  package func handedOver() { handOver?.run() }
}

/// Work run once, by whichever asks first.
final class HandOver: Sendable {
  private let work: Mutex<(@Sendable () -> Void)?>

  init(_ work: @escaping @Sendable () -> Void) {
    self.work = Mutex(work)
  }

  func run() {
    let work = work.withLock { work in
      defer { work = nil }
      return work
    }
    work?()
  }
}
