import Foundation
import Glibc

/// The cross-process lock of a data file: an exclusive `flock` on `.NAME.lock` beside it, held
/// until this value goes.
///
/// The data file itself cannot carry the lock: every write replaces it with a new file, so a
/// lock on the old one would guard nothing. The lock file is never removed (a process may be
/// waiting on it), and is opened:
/// - read-only, since closing a file opened for writing is an event for every watcher of the
///   folder;
/// - never through a link (`O_NOFOLLOW`): a planted `.NAME.lock` link would have the lock create
///   any file it names;
/// - never blocking (`O_NONBLOCK`): a FIFO there would have `open` wait for a writer; anything
///   but a regular file is refused, naming it.
///
/// `flock` locks belong to an open file description, so two holders in one process exclude each
/// other as two processes do.
package struct LockFile: ~Copyable {
  /// A lock file that cannot serve: `reason` says why and what to do.
  package struct Refused: Error, Equatable {
    package let path: String
    package let reason: String
  }

  private let descriptor: Int32

  /// Takes the lock of the data file at `path`, waiting while another holder has it; creates
  /// the lock file, and its folder, when missing.
  package init(beside path: String) throws {
    let folder = LexicalPath.parent(of: path)
    let lockPath = Self.path(for: path, in: folder)
    let descriptor = try Self.open(lockPath, folder: folder)
    do {
      let type = try FileType.ofOpenFile(descriptor, path: lockPath)
      guard type == .regular else {
        throw Refused(path: lockPath, reason: "it is \(type), not a regular file; remove it")
      }
      try systemCall("flock", path: path) { flock(descriptor, LOCK_EX) }
    } catch {
      close(descriptor)
      throw error
    }
    self.descriptor = descriptor
  }

  deinit { close(descriptor) }

  /// `.NAME.lock` in `folder`, that of the data file at `path`.
  private static func path(for path: String, in folder: String) -> String {
    (folder == "/" ? "" : folder) + "/." + LexicalPath.name(of: path) + ".lock"
  }

  private static func open(_ lockPath: String, folder: String) throws -> Int32 {
    func openLock() throws(SystemError) -> Int32 {
      try systemCall("open", path: lockPath) {
        Glibc.open(
          lockPath, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o600)
      }
    }
    do {
      return try openLock()
    } catch  where error.code == ELOOP {
      throw Refused(
        path: lockPath,
        reason: "the lock file is a symbolic link, which Tether does not follow; remove it")
    } catch  where [ENXIO, ENODEV].contains(error.code) {
      throw Refused(path: lockPath, reason: "it is not a regular file; remove it")
    } catch  where error.code == ENOENT {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      return try openLock()
    }
  }
}
