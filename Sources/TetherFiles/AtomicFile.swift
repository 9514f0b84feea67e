import CTetherLinux
package import Foundation
import Glibc
import Logging
import TetherLocking

/// Crash-safe replacement of a file's content, and the clean-up of what a crash leaves behind.
///
/// A write goes to `.<name>.tether-XXXXXX` in the same folder (created `O_EXCL|O_CLOEXEC`, mode
/// `0600`), is fsynced, takes the existing file's mode (and owner, as root), and is renamed over
/// the file: a reader, or a crash at any moment, sees the old bytes or the new ones, never a
/// mix. The temp file is `flock`ed while it is live, so a later clean-up can tell a crashed
/// writer's leftovers from a running writer's work. Only a regular file is replaced: a FIFO,
/// device, socket or folder at the path is an error naming it, and stays.
///
/// A reader that opened the file before a write keeps the bytes it opened: a write never goes
/// into an inode a reader may hold, so every write makes a temp file of its own.
package enum AtomicFile {
  /// The file no longer holds what the writer expected: someone else changed it.
  package struct Conflict: Error {}

  /// Replaces the content of `path` (already resolved through symlinks) with `data`; returns
  /// the version of the file that now holds it.
  ///
  /// When `expected` is given and the file does not hold it as it is replaced (its content, and
  /// its version when `expected` has one: the same bytes written again are a change too), it is
  /// left (or put back) as it was and ``Conflict`` is thrown: an external edit is never
  /// overwritten unseen, on file systems with `renameat2`'s exchange (ext4, XFS, Btrfs, tmpfs,
  /// overlayfs).
  @discardableResult
  package static func write(
    _ data: Data, to path: String, durable: Bool, expected: FileSnapshot?
  ) throws -> FileVersion {
    let folder = LexicalPath.parent(of: path)
    var attempts = 0
    while true {
      do {
        return try writeOnce(data, to: path, folder: folder, durable: durable, expected: expected)
      } catch let error as SystemError where error.call == "rename" && error.code == ENOENT {
        // Another process's clean-up took our temp file in the instant before we locked it.
        attempts += 1
        if attempts == 3 { throw error }
      }
    }
  }

  private static func writeOnce(
    _ data: Data, to path: String, folder: String, durable: Bool, expected: FileSnapshot?
  ) throws -> FileVersion {
    let existing = try existingFile(at: path)
    let (fd, temporary, ours) = try createTemporary(beside: path, in: folder)
    var renamed = false
    defer {
      close(fd)
      if !renamed { unlink(temporary) }
    }
    try systemCall("flock", path: temporary) { flock(fd, LOCK_EX) }
    try data.withUnsafeBytes { (bytes) throws in
      var offset = 0
      while offset < bytes.count {
        offset += try systemCall("write", path: temporary) {
          Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
        }
      }
    }
    if let existing {
      // Only when they differ from the temp file's: each change is an event for every watcher.
      if existing.st_mode & 0o7777 != ours.st_mode & 0o7777 {
        try systemCall("fchmod", path: temporary) { fchmod(fd, existing.st_mode & 0o7777) }
      }
      if geteuid() == 0, existing.st_uid != ours.st_uid || existing.st_gid != ours.st_gid {
        try systemCall("fchown", path: temporary) { fchown(fd, existing.st_uid, existing.st_gid) }
      }
    }
    try systemCall("fsync", path: temporary) { fsync(fd) }
    // Its last write set the time; renaming it changes neither the time nor the inode.
    let version = try FileVersion.of(fd, path: temporary)
    renamed = try replace(path, with: temporary, data: data, expected: expected)
    if durable {
      let directory = try systemCall("open", path: folder) {
        open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
      }
      defer { close(directory) }
      try systemCall("fsync", path: folder) { fsync(directory) }
    }
    return version
  }

  /// What `stat` says of the file at `path`, `nil` when there is none. Anything but a regular
  /// file is refused (``FileError/notRegular(path:type:)``): renaming over a FIFO, a device or
  /// a socket would silently destroy what someone put there, and a folder cannot be.
  private static func existingFile(at path: String) throws -> stat? {
    var info = stat()
    do {
      try systemCall("stat", path: path) { stat(path, &info) }
    } catch {
      guard error.code == ENOENT || error.code == ENOTDIR else { throw error }
      // Made by this write; a file in the way of its folder fails as the temp file is made.
      return nil
    }
    if let refusal = FileError.refusing(path, mode: info.st_mode) { throw refusal }
    return info
  }

  /// Renames `temporary` (holding `data`) over `path` if `path` still holds `expected` (or
  /// whatever it holds, without one), else throws ``Conflict`` and leaves `path` as it is.
  /// Returns whether `temporary` is gone; when it is not, it holds the file that was replaced,
  /// for the caller's clean-up to remove.
  ///
  /// A check and then a rename would leave a window in which an editor's own rename could land
  /// and be overwritten unseen (an editor's save racing a write started at the same moment
  /// loses this way). So the check is made with the rename where the file system can: a missing
  /// file is replaced only if it is still missing (`RENAME_NOREPLACE`); an existing one is
  /// swapped with ours (`RENAME_EXCHANGE`) and what came out is checked, and swapped back when
  /// it was not what we expected. A file system without these gets the check and the rename.
  private static func replace(
    _ path: String, with temporary: String, data: Data, expected: FileSnapshot?
  ) throws -> Bool {
    // Also checked beforehand, so that a conflict seen then never puts our bytes in place even
    // for the instant of an exchange.
    if let expected, !FileSnapshot.read(path).isSame(as: expected) { throw Conflict() }
    do {
      switch expected?.content {
      case .missing?:
        try renameat2(temporary, path, flags: TETHER_RENAME_NOREPLACE)
        return true
      case .data?:
        try renameat2(temporary, path, flags: TETHER_RENAME_EXCHANGE)
        // What came out is at the temporary path now.
        let replaced = FileSnapshot.read(temporary)
        if replaced.content != .missing, let expected, !replaced.isSame(as: expected) {
          try swapBack(path, temporary, data: data)
          throw Conflict()
        }
        return false
      case .unreadable?, nil:
        // Nothing to compare with: replaced as it is.
        try systemCall("rename", path: path) { rename(temporary, path) }
        return true
      }
    } catch let error as SystemError where error.code == EEXIST || error.code == ENOENT {
      // Our temp file gone: another process's clean-up took it before we locked it, and
      // `write` makes another. Else `path` was made, or removed, since the check above.
      if error.code == ENOENT, FileIdentity.of(temporary) == nil {
        throw SystemError(call: "rename", path: path, code: ENOENT)
      }
      throw Conflict()
    } catch let error as SystemError where error.code == EINVAL || error.code == ENOSYS {
      try systemCall("rename", path: path) { rename(temporary, path) }
      return true
    }
  }

  /// Undoes an exchange that took out someone else's file, and keeps a newer one at `path` when
  /// that too came in meanwhile.
  private static func swapBack(_ path: String, _ temporary: String, data: Data) throws {
    try renameat2(temporary, path, flags: TETHER_RENAME_EXCHANGE)
    if FileContent.read(temporary) != .data(data) {
      try renameat2(temporary, path, flags: TETHER_RENAME_EXCHANGE)
    }
  }

  private static func renameat2(_ from: String, _ to: String, flags: UInt32) throws(SystemError) {
    try systemCall("renameat2", path: to) { tether_renameat2(from, to, flags) }
  }

  /// What named the spare temp file earlier versions kept beside a defaults file, written over
  /// in place: removed as a stale temporary.
  static let spareSuffix = ".tether-spare"

  /// Creates `.<name>.tether-XXXXXX` (random, `O_EXCL|O_CLOEXEC`, mode `0600`) beside `path`;
  /// returns it with its `stat`.
  private static func createTemporary(
    beside path: String, in folder: String
  ) throws -> (Int32, String, stat) {
    let name = LexicalPath.name(of: path)
    while true {
      let temporary = "\(folder)/.\(name)\(marker)\(randomSuffix())"
      let fd: Int32
      do {
        fd = try openMakingFolder(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, in: folder)
      } catch let error as SystemError where error.code == EEXIST {
        continue
      }
      var info = stat()
      do {
        try systemCall("fstat", path: temporary) { fstat(fd, &info) }
      } catch {
        close(fd)
        unlink(temporary)
        throw error
      }
      return (fd, temporary, info)
    }
  }

  /// Opens `path` (mode `0600` when created), making its folder first when it is missing.
  private static func openMakingFolder(
    _ path: String, _ flags: Int32, in folder: String
  ) throws -> Int32 {
    func attempt() throws(SystemError) -> Int32 {
      try systemCall("open", path: path) { open(path, flags, 0o600) }
    }
    do {
      return try attempt()
    } catch  where error.code == ENOENT {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      return try attempt()
    }
  }

  /// Six random letters and digits from one draw of the system generator (a syscall each).
  private static func randomSuffix() -> String {
    var bits = UInt64.random(in: .min ... .max)
    var suffix: [UInt8] = []
    for _ in 0..<6 {
      suffix.append(alphabet[Int(bits % UInt64(alphabet.count))])
      bits /= UInt64(alphabet.count)
    }
    return String(decoding: suffix, as: UTF8.self)
  }

  /// What names our temp files: `.<file name>.tether-` and six of these.
  private static let marker = ".tether-"
  private static let alphabet = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

  /// Removes the temp files that writers left in `path`'s folder when they crashed; those of live
  /// writers (still locked) stay. Each folder is cleaned once per process, when its first file
  /// is opened: listing it per file made opening 10,000 files in 100 folders quadratic, and
  /// matching each file against the listing was still a tenth of a file key's start. Ones left
  /// later by other processes are removed by the next process that opens a file there.
  package static func removeStaleTemporaries(of path: String) {
    let newFolder = cleanedFolders.withLock { cleaned -> String? in
      // Files are mostly opened folder by folder: the last folder is checked without making
      // the path's parent and hashing it.
      if LexicalPath.isDirectChild(path, of: cleaned.last) { return nil }
      let folder = LexicalPath.parent(of: path)
      cleaned.last = folder
      // Bounded for processes that open files in ever new folders: a folder forgotten is only
      // looked through again.
      if cleaned.folders.count >= 4096 { cleaned.folders.removeAll(keepingCapacity: true) }
      return cleaned.folders.insert(folder).inserted ? folder : nil
    }
    guard let folder = newFolder else { return }
    let names: [String]
    do {
      // Ours start with a dot: other names are not made into strings.
      names = try DirectoryListing.names(in: folder, withPrefix: ".")
    } catch {
      // No folder yet: nothing was left in it.
      if error.code != ENOENT {
        Logger.files.warning("cannot look for stale temporary files in \(folder): \(error)")
      }
      return
    }
    for name in names where isTemporary(name) || name.hasSuffix(spareSuffix) {
      let candidate = folder + "/" + name
      let fd = open(candidate, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
      guard fd >= 0 else { continue }
      if flock(fd, LOCK_EX | LOCK_NB) == 0 { unlink(candidate) }
      close(fd)
    }
  }

  /// Whether `name` is one of ours: `.<file name>.tether-XXXXXX`.
  package static func isTemporary(_ name: String) -> Bool {
    guard name.hasPrefix("."), name.utf8.count > 1 + marker.utf8.count + 6 else { return false }
    let suffix = name.utf8.suffix(marker.utf8.count + 6)
    return suffix.starts(with: marker.utf8)
      && suffix.dropFirst(marker.utf8.count).allSatisfy(alphabet.contains)
  }

  private static let cleanedFolders = UnfairMutex(CleanedFolders())

  private struct CleanedFolders {
    var folders: Set<String> = []
    /// The folder of the last call.
    var last = ""
  }

  /// Keeps the file at `path` as `<name>.corrupt-<UTC yyyyMMdd'T'HHmmss'Z'>` beside it (a hard
  /// link, so the bytes, mode and owner are exactly the original's); returns the backup's path.
  package static func keepCorrupt(_ path: String, now: Date = Date()) throws(SystemError) -> String
  {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
    let base = "\(path).corrupt-\(formatter.string(from: now))"
    var candidate = base
    var suffix = 1
    while true {
      do {
        try systemCall("link", path: candidate) { link(path, candidate) }
        return candidate
      } catch  where error.code == EEXIST {
        suffix += 1
        candidate = "\(base)-\(suffix)"
      }
    }
  }
}
