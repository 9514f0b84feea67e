import Foundation
import Glibc
import TetherFiles
import TetherLocking

/// The private folder the watcher thread watches so other threads can reach it: writing one byte
/// to its `wake` file queues an `IN_MODIFY` in the kernel, so a wake-up is never lost; a
/// ``queueMarker(_:)`` queues an event of its own, and ``queuePause()`` one that tests pause at.
///
/// It is made with `mkdtemp` (under `$XDG_RUNTIME_DIR` when set) and removed at exit.
final class ControlFile: Sendable {
  let path: String
  let folder: String
  /// The folder's inode, by which the watcher finds its inotify descriptor.
  let inode: UInt64
  private let fd: Int32

  /// The name of the wake-up file, as the folder's events give it.
  static let wakeName = "wake"
  /// How a marker's name begins; its number follows.
  static let markerPrefix = "marker-"
  /// The name of the event a paused test watcher stops at (a marker's, so exit removes it).
  static let pauseName = markerPrefix + "pause"

  init() throws(SystemError) {
    let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap {
      FileManager.default.isWritableFile(atPath: $0) ? $0 : nil
    }
    let parent = runtime ?? "/tmp"
    Self.removeAbandoned(in: parent)
    var template = Array((parent + "/tether-watch-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
    }
    guard let made else { throw SystemError(call: "mkdtemp", code: errno) }
    folder = made
    path = folder + "/" + Self.wakeName
    var folderInfo = stat()
    try systemCall("stat", path: made) { stat(made, &folderInfo) }
    inode = UInt64(folderInfo.st_ino)
    // Made and locked under another name, then renamed: a watcher cleaning abandoned folders
    // never finds a `wake` that is not locked yet, and so never takes a live one.
    let (building, file) = (path + ".new", path)
    fd = try systemCall("open", path: building) {
      open(building, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    }
    let opened = fd
    // Held for the life of the process: a folder whose file is not locked was abandoned.
    try systemCall("flock", path: building) { flock(opened, LOCK_EX) }
    try systemCall("rename", path: building) { rename(building, file) }
    ControlFile.removeAtExit(folder: folder)
  }

  /// Wakes the watcher thread.
  func wake() {
    var byte: UInt8 = 0x77
    let opened = fd
    do {
      try systemCall("pwrite", path: path) { pwrite(opened, &byte, 1, 0) }
    } catch {
      // The descriptor is ours and open: a failure means the process is out of resources. The
      // request waits for the next wake-up or event; the log says why it waits.
      FileWatcher.logger.error("cannot wake the watcher thread: \(error)")
    }
  }

  /// Queues an event named after `id` behind every event queued so far, which the thread reads
  /// only after them: a wake-up may instead join one written long before (the kernel merges an
  /// event into the same one queued last and unread), or be served by an earlier one.
  func queueMarker(_ id: UInt64) throws(SystemError) {
    try queueEvent(named: Self.markerPrefix + String(id))
  }

  /// Queues the event at which a thread asked to pause stops: a wake-up cannot serve, as one
  /// written earlier may still be unread when the pause is asked for, and the thread would stop
  /// there with later wake-ups still queued ahead of what the test queues next.
  func queuePause() throws(SystemError) {
    try queueEvent(named: Self.pauseName)
  }

  private func queueEvent(named name: String) throws(SystemError) {
    let link = folder + "/" + name
    try systemCall("symlink", path: link) { symlink(".", link) }
    do {
      try systemCall("unlink", path: link) { unlink(link) }
    } catch {
      // The event is queued all the same; the link goes with the folder at exit.
      FileWatcher.logger.warning("cannot remove the watcher's marker: \(error)")
    }
  }

  /// How old a control folder without its `wake` file must be to count as abandoned: a watcher
  /// fills its folder microseconds after making it, so only one killed in between leaves it so.
  static let abandonedAge: TimeInterval = 60

  /// Removes the folders of watchers that ended without running `atexit` (SIGKILL, a crash),
  /// and those of watchers killed while making theirs.
  private static func removeAbandoned(in parent: String) {
    let names: [String]
    do {
      names = try DirectoryListing.names(in: parent, withPrefix: "tether-watch-")
    } catch {
      // Clean-up is a courtesy to processes that died; this one's watcher works without it.
      FileWatcher.logger.debug("cannot list \(parent) for abandoned watcher folders: \(error)")
      return
    }
    for name in names {
      let folder = parent + "/" + name
      let file = folder + "/" + wakeName
      let fd: Int32
      do {
        fd = try systemCall("open", path: file) { open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
      } catch  where error.code == ENOENT {
        if isOldFolder(folder) { remove(folder) }
        continue
      } catch {
        continue  // Another user's, or not ours to judge.
      }
      defer { close(fd) }
      do {
        try systemCall("flock", path: file) { flock(fd, LOCK_EX | LOCK_NB) }
      } catch {
        continue  // Locked: its watcher is alive.
      }
      remove(folder)
    }
  }

  /// Whether `folder` is a directory unchanged for ``abandonedAge``.
  private static func isOldFolder(_ folder: String) -> Bool {
    var info = stat()
    do {
      try systemCall("lstat", path: folder) { lstat(folder, &info) }
    } catch {
      return false  // Gone already, or not ours to judge.
    }
    guard info.st_mode & S_IFMT == S_IFDIR else { return false }
    return Date().timeIntervalSince1970 - TimeInterval(info.st_mtim.tv_sec) > abandonedAge
  }

  /// Removes a control folder and the only files a watcher makes in it.
  private static func remove(_ folder: String) {
    unlink(folder + "/" + wakeName)
    unlink(folder + "/" + wakeName + ".new")
    // Markers are removed as soon as made: one is left only by a process killed in between.
    do {
      for name in try DirectoryListing.names(in: folder, withPrefix: markerPrefix) {
        unlink(folder + "/" + name)
      }
    } catch {
      FileWatcher.logger.debug("cannot list the watcher folder \(folder): \(error)")
    }
    rmdir(folder)
  }

  private static let folders = UnfairMutex<[String]>([])
  private static let registered: Void = {
    atexit {
      for folder in ControlFile.folders.withLock({ $0 }) { ControlFile.remove(folder) }
    }
  }()

  private static func removeAtExit(folder: String) {
    _ = registered
    folders.withLock { $0.append(folder) }
  }
}
