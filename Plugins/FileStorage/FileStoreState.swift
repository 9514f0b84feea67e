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
  /// What this store's last write wrote (see ``LastWrite``).
  var lastWrite: LastWrite?
}

/// The bytes a store last wrote, and until when a change of the same bytes finds them written.
///
/// A holder's `save()` right after its `withLock` is a second change of the value the first
/// one's write (already under way) carries. Written again, it would only be refused if the file
/// moved meanwhile — another process answering the first write, say — and its caller told
/// "dropped" of a value that was written. So a change numbered before the holders were told of
/// any edit after that write, and holding the same bytes, finds them written.
///
/// Only while the file is watched, and no other write of this process's (a key of the file of
/// another value type) has landed since: its holders are not told of those.
struct LastWrite: Sendable {
  /// The bytes written: the buffer the watcher keeps as what it handed over, shared.
  let data: Data
  /// How many of this process's writes of the file had landed with it (see
  /// `FileWatch.ownWritesLanded`).
  let landed: UInt64
  /// The number of the first change made once the holders had been told of an edit since the
  /// write; `nil` while they have been told of none.
  var editedSince: UInt64?

  init(data: Data, landed: UInt64) {
    self.data = data
    self.landed = landed
  }

  /// Whether a change numbered `serial` that would write `data` finds it written, `landed` of
  /// this process's writes of the file having landed now.
  func wrote(_ data: Data, serial: UInt64, landed: UInt64) -> Bool {
    serial < (editedSince ?? .max) && landed == self.landed && data == self.data
  }
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
