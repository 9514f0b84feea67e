import Foundation
import Glibc
import Synchronization

/// The private file the watcher thread watches so other threads can wake it: writing one byte
/// queues an `IN_MODIFY` in the kernel, so a wake-up is never lost.
///
/// It lives in a private `mkdtemp` folder (under `$XDG_RUNTIME_DIR` when set), removed at exit.
final class ControlFile: Sendable {
  let path: String
  let folder: String
  let inode: UInt64
  private let fd: Int32

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
    path = folder + "/wake"
    // Made and locked under another name, then renamed: a watcher cleaning abandoned folders
    // never finds a `wake` that is not locked yet, and so never takes a live one.
    let (building, file) = (folder + "/wake.new", path)
    fd = try systemCall("open", path: building) {
      open(building, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    }
    var info = stat()
    let opened = fd
    try systemCall("fstat", path: building) { fstat(opened, &info) }
    inode = UInt64(info.st_ino)
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
      let file = folder + "/wake"
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
    unlink(folder + "/wake")
    unlink(folder + "/wake.new")
    rmdir(folder)
  }

  private static let folders = Mutex<[String]>([])
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
