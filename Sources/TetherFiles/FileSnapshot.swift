import Glibc

/// What a read of a file found: its content, and the version of the file it came from.
package struct FileSnapshot: Sendable {
  /// What the file held.
  package var content: FileContent
  /// The version the content was read from; `nil` when not known (nothing was there, it could
  /// not be read, or the content came from somewhere else than a read).
  package var version: FileVersion?

  package init(_ content: FileContent, version: FileVersion? = nil) {
    self.content = content
    self.version = version
  }

  /// Reads the file at `path`, following symlinks (see ``FileContent/read(_:)``).
  package static func read(_ path: String) -> FileSnapshot {
    var version: FileVersion?
    let content = FileContent.read(path, version: &version)
    return FileSnapshot(content, version: version)
  }

  /// Whether `other` found the same bytes in the same version of the file, as far as both
  /// know: equal content from versions that differ is the file rewritten with the bytes it
  /// held, by someone who means them as a change.
  package func isSame(as other: FileSnapshot) -> Bool {
    guard content == other.content else { return false }
    guard let version, let otherVersion = other.version else { return true }
    return version == otherVersion
  }
}

/// Which version of a file a read saw: the file (device and inode) and its size and
/// modification time. An in-place write changes the time; a replacement (an editor's rename, an
/// atomic write) changes the inode. A `chmod`, a new link or a rename of the file itself does
/// not: they change no byte. Times are as fine as the file system keeps them, so two writes
/// within one tick of its clock, leaving the size as it was, look like one version.
package struct FileVersion: Sendable, Equatable {
  let device: UInt64
  let inode: UInt64
  let size: Int64
  let modifiedSeconds: Int
  let modifiedNanoseconds: Int

  /// A version given by its parts, for tests of what compares versions.
  package init(
    device: UInt64, inode: UInt64, size: Int64, modifiedSeconds: Int, modifiedNanoseconds: Int
  ) {
    self.device = device
    self.inode = inode
    self.size = size
    self.modifiedSeconds = modifiedSeconds
    self.modifiedNanoseconds = modifiedNanoseconds
  }

  init(_ info: stat) {
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    modifiedSeconds = info.st_mtim.tv_sec
    modifiedNanoseconds = info.st_mtim.tv_nsec
  }

  /// The version of the file at `path` (following symlinks), or `nil` when there is none.
  package static func of(_ path: String) -> FileVersion? {
    var info = stat()
    do {
      try systemCall("stat", path: path) { stat(path, &info) }
    } catch {
      return nil
    }
    return FileVersion(info)
  }

  /// The version of the file open at `fd`.
  static func of(_ fd: Int32, path: String) throws(SystemError) -> FileVersion {
    var info = stat()
    try systemCall("fstat", path: path) { fstat(fd, &info) }
    return FileVersion(info)
  }
}
