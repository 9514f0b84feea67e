import Glibc

/// Why a data file cannot be read or replaced.
package enum FileError: Error, Equatable, CustomStringConvertible {
  /// A system call on it failed.
  case system(SystemError)
  /// What is at `path` is not a regular file. Reading a FIFO or a device can block forever or
  /// never end, and replacing one would destroy what someone put there: it is refused.
  case notRegular(path: String, type: FileType)

  package var description: String {
    switch self {
    case .system(let error): return error.description
    case .notRegular(let path, let type): return "\(path): not a regular file: it is \(type)"
    }
  }

  /// The `errno` of a failed system call; `nil` for a file that is not a regular one.
  package var code: Int32? {
    if case .system(let error) = self { return error.code }
    return nil
  }

  /// ``notRegular(path:type:)`` for a file of `mode` (from `stat`) that is not a regular one;
  /// `nil` for a regular file.
  static func refusing(_ path: String, mode: mode_t) -> FileError? {
    let type = FileType(mode: mode)
    return type == .regular ? nil : .notRegular(path: path, type: type)
  }
}

/// What kind of file `stat` found.
package enum FileType: Sendable, Equatable, CustomStringConvertible {
  /// A regular file: the only kind a data file may be.
  case regular
  /// A directory.
  case folder
  /// A named pipe: opening it for reading waits for a writer, reading it for data.
  case fifo
  /// A Unix-domain socket: it cannot be opened at all.
  case socket
  /// A character device (a terminal, `/dev/zero`): reading it may block or never end.
  case characterDevice
  /// A block device (a disk).
  case blockDevice
  /// A link, as `lstat` sees it.
  case symbolicLink
  /// A type `stat` has no name for here.
  case unknown

  /// The type in `stat`'s `st_mode`.
  init(mode: mode_t) {
    switch mode & S_IFMT {
    case S_IFREG: self = .regular
    case S_IFDIR: self = .folder
    case S_IFIFO: self = .fifo
    case S_IFSOCK: self = .socket
    case S_IFCHR: self = .characterDevice
    case S_IFBLK: self = .blockDevice
    case S_IFLNK: self = .symbolicLink
    default: self = .unknown
    }
  }

  /// The type of the file open at `descriptor` (`path` names it in errors).
  package static func ofOpenFile(_ descriptor: Int32, path: String) throws(SystemError) -> FileType
  {
    var info = stat()
    try systemCall("fstat", path: path) { fstat(descriptor, &info) }
    return FileType(mode: info.st_mode)
  }

  package var description: String {
    switch self {
    case .regular: "a regular file"
    case .folder: "a folder"
    case .fifo: "a FIFO (named pipe)"
    case .socket: "a socket"
    case .characterDevice: "a character device"
    case .blockDevice: "a block device"
    case .symbolicLink: "a symbolic link"
    case .unknown: "of an unknown type"
    }
  }
}
