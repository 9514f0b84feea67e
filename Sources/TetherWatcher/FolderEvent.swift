import TetherFiles

/// An event of a name in a watched folder, as the watcher thread read it: what the watcher
/// takes up (``FileWatcher/takeUp(_:)``).
struct FolderEvent {
  /// The name's path, and its hash, computed on the thread rather than under the lock.
  let key: HashedPath
  /// Whether a process may be writing the file in place after the event, when it says.
  let writerStillOpen: Bool?
  /// Whether the event ends a write (a close after writing, a rename into place).
  let endsAWrite: Bool
  /// Whether the name is a folder's.
  let isDirectory: Bool

  var file: String { key.string }

  init(file: String, writerStillOpen: Bool?, endsAWrite: Bool, isDirectory: Bool) {
    self.key = HashedPath(file)
    self.writerStillOpen = writerStillOpen
    self.endsAWrite = endsAWrite
    self.isDirectory = isDirectory
  }
}
