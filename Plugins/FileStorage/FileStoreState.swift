import Foundation
import TetherFiles
import TetherLocking
import TetherWatcher

/// A store's state and its lock, in one object that the writer's closures hold without the
/// store. An `UnfairMutex` inline: a `LockedState` is one more allocation (itself, around its
/// mutex), and this lock is not on a change's path.
final class FileStoreLock: Sendable {
  private let mutex = UnfairMutex(FileStoreState())
  /// Taken by a write and a delivery, so that no delivery read before a write of this process
  /// applies after it. Recursive: a holder told of a change may make a key of the file.
  let view = NSRecursiveLock()

  func withLock<R: Sendable>(_ body: (inout FileStoreState) -> R) -> R {
    mutex.withLock { body(&$0) }
  }
}

struct FileStoreState: Sendable {
  /// Bytes that failed to decode: kept as a backup before anything replaces them.
  var corrupt: Data?
  var subscribers: [FileStoreSubscriber] = []
  var nextSubscriber: UInt64 = 0
  /// The one view of the file while it has no watch: what a key read as it opened the file
  /// (for the load that follows) or what the last load read (for the watch that starts next,
  /// which then need not read the file again). The watcher's view replaces it.
  var lastRead: LastRead?
  var watch: FileWatch?
  /// How many of this process's writes through `watch` had landed at its latest write (see
  /// ``FileWatch/ownWritesLanded``): a delivery read before that is older than the file.
  var ownWritesLanded: UInt64 = 0
  /// The number of the next change (see ``PendingFileChange/serial``).
  var nextSerial: UInt64 = 0
  /// The number of the first change made after the holders were last told of an edit (set
  /// when a delivery starts, and again as each holder has it): an earlier one is dropped
  /// rather than written over the edit.
  var editedBefore: UInt64 = 0
}

/// The file as the store last read it, and where the watcher stood before.
struct LastRead: Sendable {
  let read: FileSnapshot
  let mark: WatchMark?
}

struct FileStoreSubscriber: Sendable {
  let id: UInt64
  /// Gives the holders the file's content, and runs `seen` once they have it (see
  /// `SharedSubscriber.give(_:seen:)`).
  let deliver: @Sendable (FileContent, _ seen: () -> Void) -> Void
  let saved: @Sendable (Result<Void, any Error>) -> Void
}
